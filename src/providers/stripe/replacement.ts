import type Stripe from 'stripe';
import { ProviderError } from '../port';

// A Stripe reauthorization is a new PaymentIntent that carries `metadata.reauthorizes: <previous id>`, then a
// cancel of the previous. A retry after Stripe forgot the create's key (24 hours) would make another new
// intent, so the adapter first lists the intents that already reauthorize the previous and chooses here what
// to do with them: adopt one that still holds what is asked, release every other that still holds money
// (the payer would keep a second hold the lifecycle does not know), and create only when none is adoptable.

/** The metadata a reauthorization's new intent names the intent it replaces in. */
export const REAUTHORIZES_METADATA = 'reauthorizes';

/** Stripe's refusal, in the port's terms, of a reauthorization whose previous hold cannot be released. */
export const AUTHORIZATION_NOT_REPLACEABLE = 'authorization_not_replaceable';

/** The refusal: `${intentId} ${why}`, and that a new hold would not replace it. */
export function notReplaceable(intentId: string, why: string): ProviderError {
  return new ProviderError({
    message: `${intentId} ${why}, so a new hold would not replace it`,
    type: AUTHORIZATION_NOT_REPLACEABLE,
    retryable: false,
    details: [],
  });
}

/**
 * - `adopt`: an intent already replaces the previous and holds what is asked; the previous is canceled if it
 *   still can be.
 * - `create`: none does; a new intent is made, then the previous canceled.
 * - `refuse`: no new hold can replace the previous (it cannot be canceled, or a replacement captured money the
 *   lifecycle does not know of).
 * In each, `release` are the replacements that still hold money and are not adopted: canceled first.
 */
export type ReplacementChoice = { release: Stripe.PaymentIntent[] } & (
  | { action: 'adopt'; intent: Stripe.PaymentIntent }
  | { action: 'create' }
  | { action: 'refuse'; error: ProviderError }
);

/** Whether Stripe can still cancel the intent: it holds money and captured none of it. */
export function cancelable(intent: Stripe.PaymentIntent): boolean {
  return intent.status === 'requires_capture' && intent.amount_received === 0;
}

function holdsMoney(intent: Stripe.PaymentIntent): boolean {
  return cancelable(intent) && intent.amount_capturable > 0;
}

/** Whether `intent` was made to replace `previous` (its metadata says so). */
export function replaces(intent: Stripe.PaymentIntent, previous: Stripe.PaymentIntent): boolean {
  return intent.id !== previous.id && intent.metadata?.[REAUTHORIZES_METADATA] === previous.id;
}

/**
 * What to do about `found`, the intents that replace `previous` (newest first), for a reauthorization of
 * `asked` (Stripe's amount and currency). A replacement that is canceled holds nothing and is left alone.
 */
export function replacementChoice(
  previous: Stripe.PaymentIntent,
  found: readonly Stripe.PaymentIntent[],
  asked: { amount: number; currency: string },
): ReplacementChoice {
  const holding = found.filter(holdsMoney);
  const adoptable = holding.find(
    (intent) => intent.amount === asked.amount && intent.currency === asked.currency,
  );
  const others = holding.filter((intent) => intent !== adoptable);
  const captured = found.find((intent) => intent.amount_received > 0);
  if (captured) {
    return {
      action: 'refuse',
      release: holding,
      error: notReplaceable(
        previous.id,
        `was replaced already by ${captured.id}, which captured ${captured.amount_received} the lifecycle does not know of`,
      ),
    };
  }
  if (!cancelable(previous) && previous.status !== 'canceled') {
    return {
      action: 'refuse',
      release: holding,
      error: notReplaceable(
        previous.id,
        `is ${previous.status} with ${previous.amount_received} captured and ${previous.amount_capturable} capturable: Stripe cannot cancel it`,
      ),
    };
  }
  if (adoptable) return { action: 'adopt', intent: adoptable, release: others };
  return { action: 'create', release: others };
}
