import ms from 'ms';
import { durationDefaults } from '../../duration-bounds';
import type { DeadlineReasons } from './definitions';

// When a lifecycle's hold timers run, from the hold's real end: each provider keeps a hold its own way.
// PayPal honors an authorization's funds for 3 days and keeps it 29 (a reauthorization after the honor period
// renews the funds); Stripe holds the funds until the charge's capture_before (7 days for most online card
// payments, about 4 days 18 hours for a Visa merchant-initiated one, up to 30 with extended authorization).

/** How long before a hold's end the expiry policy runs. */
export const HOLD_END_MARGIN_MS = 60 * 60 * 1000;

/** How long before its end a hold whose funds last until then is reauthorized (Stripe's). */
export const REAUTHORIZE_BEFORE_END_MS = 24 * 60 * 60 * 1000;

export type HoldDeadlines = { reauthorizeAt: string; expiryPolicyAt: string; reasons: DeadlineReasons };

export type HoldFacts = {
  /** When the authorization was made (ms). */
  madeAt: number;
  /** When the provider ends the hold (ms); undefined when it does not say. */
  endsAt: number | undefined;
  /** How long the provider honors the hold's funds after it is made (PayPal's 3 days); absent: until its end. */
  honorPeriodMs?: number;
};

/**
 * The reauthorization: the lifecycle's `reauthorizeAfter` when the start gave one, else as the provider keeps
 * money held: when its honor period ends (PayPal), or a day before the hold ends (Stripe). The expiry policy:
 * the lifecycle's `expiryPolicyAfter`, unless the hold ends sooner: then an hour before its end.
 */
export function holdDeadlines(
  hold: HoldFacts,
  requested: { reauthorizeAfter?: number; expiryPolicyAfter?: number },
): HoldDeadlines {
  const reauthorize = reauthorizeDeadline(hold, requested.reauthorizeAfter);
  const expiryPolicy = expiryPolicyDeadline(hold, requested.expiryPolicyAfter);
  return {
    reauthorizeAt: new Date(reauthorize.at).toISOString(),
    expiryPolicyAt: new Date(expiryPolicy.at).toISOString(),
    reasons: { reauthorize: reauthorize.why, expiryPolicy: expiryPolicy.why },
  };
}

type Deadline = { at: number; why: string };

function reauthorizeDeadline(hold: HoldFacts, requestedAfter: number | undefined): Deadline {
  if (requestedAfter !== undefined) {
    return {
      at: hold.madeAt + requestedAfter,
      why: `reauthorizeAfter: ${long(requestedAfter)} after the authorization`,
    };
  }
  if (hold.honorPeriodMs !== undefined) {
    return {
      at: hold.madeAt + hold.honorPeriodMs,
      why: `the provider's honor period of ${long(hold.honorPeriodMs)} ends: a reauthorization renews the funds`,
    };
  }
  if (hold.endsAt !== undefined) {
    return {
      at: hold.endsAt - REAUTHORIZE_BEFORE_END_MS,
      why: `a day before the hold ends at ${new Date(hold.endsAt).toISOString()}`,
    };
  }
  const after = durationDefaults.reauthorizeAfter;
  return { at: hold.madeAt + after, why: `${long(after)} after the authorization` };
}

function expiryPolicyDeadline(hold: HoldFacts, requestedAfter: number | undefined): Deadline {
  const after = requestedAfter ?? durationDefaults.expiryPolicyAfter;
  const policyAt = hold.madeAt + after;
  if (hold.endsAt !== undefined && hold.endsAt - HOLD_END_MARGIN_MS < policyAt)
    return beforeHoldEnds(hold.endsAt);
  const named = requestedAfter === undefined ? '' : 'expiryPolicyAfter: ';
  return { at: policyAt, why: `${named}${long(after)} after the authorization` };
}

/** The expiry policy of a hold that ends at `endsAt`: an hour before it. */
export function beforeHoldEnds(endsAt: number): Deadline {
  return {
    at: endsAt - HOLD_END_MARGIN_MS,
    why: `an hour before the hold ends at ${new Date(endsAt).toISOString()}`,
  };
}

function long(milliseconds: number): string {
  return ms(milliseconds, { long: true });
}
