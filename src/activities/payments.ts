import { ApplicationFailure } from '@temporalio/common';
import {
  ProviderError,
  type CaptureRequest,
  type IncrementRequest,
  type KeyedActionFinding,
  type PaymentsProvider,
  type ReauthorizeRequest,
  type RefundRequest,
  type VoidRequest,
  type WebhookSubscriptionChange,
  type WebhookSubscriptions,
} from '../providers/port';
import type { Authorization, Money, PaymentCapture, Refund, Webhook } from '../providers/resources';
import type { HoldingsRequest, ProviderHoldings } from '../providers/holdings';
import { underProviderNames, type ProviderName } from '../provider-names';
import { count, type BusinessCounter, type CallOutcome } from './business-metrics';

/** The authorization a lifecycle starts on, with how many captures its provider takes. */
export type StartingAuthorization = Authorization & {
  maxCaptures: number;
  /** Set only for a provider that reauthorizes by a new authorization (Stripe): the lifecycle voids the current one. */
  reauthorization?: 'new-authorization';
  /** Set only for a provider whose captures of one authorization share an id (Stripe's multicapture). */
  sharedCaptureIds?: true;
  /** Set only for a provider whose maxCaptures is its own limit: the capture that reaches it is final. */
  capturesEndAtMax?: true;
  /** Set only for a provider that captures beyond the authorized amount, by this percent of it (PayPal's). */
  overCapturePercent?: number;
  /** Set only where the provider caps that percent in one currency (PayPal's 75 USD). */
  overCaptureAtMost?: Money;
  /** Set only where a reauthorization's new hold can ask for an extended authorization (Stripe's). */
  extendedAuthorization?: true;
  /** Set only when the hold can be raised in place (Stripe's incremental authorization on this card). */
  incrementable?: true;
  /** How long the provider keeps an idempotency key (its idempotencyKeyRetentionMs). */
  keyRetentionMs: number;
  /** Set only for a provider that honors a hold's funds for less than the hold lasts (PayPal's 3 days). */
  honorPeriodMs?: number;
};

/** What a webhook subscription chooses from: the provider's event types on offer, and those it needs. */
export type WebhookEventTypeChoice = { offered: string[]; needed: string[] };

export const MISSING_IDEMPOTENCY_KEY = 'MISSING_IDEMPOTENCY_KEY';
export const WEBHOOK_SUBSCRIPTIONS_UNSUPPORTED = 'WEBHOOK_SUBSCRIPTIONS_UNSUPPORTED';
export const INCREMENT_UNSUPPORTED = 'INCREMENT_UNSUPPORTED';

/** Capture and refund take an idempotency key without fail: it makes every retry of the activity act at most once. */
function requireIdempotencyKey(activity: string, idempotencyKey: string): void {
  if (idempotencyKey) return;
  throw ApplicationFailure.create({
    type: MISSING_IDEMPOTENCY_KEY,
    message: `${activity} needs a non-empty idempotencyKey so that its retries never move money twice`,
    nonRetryable: true,
  });
}

/** One activity per call of the provider port; every argument and result is plain JSON. */
export function createPaymentsActivities(provider: PaymentsProvider) {
  const subscriptions = (): WebhookSubscriptions => {
    if (provider.subscriptions) return provider.subscriptions;
    throw ApplicationFailure.create({
      type: WEBHOOK_SUBSCRIPTIONS_UNSUPPORTED,
      message: `${provider.name} does not manage webhook subscriptions through its API`,
      nonRetryable: true,
    });
  };
  return {
    /** Read at a lifecycle's start: the provider's capture bound travels with it into the lifecycle's state. */
    getAuthorization: async (authorizationId: string): Promise<StartingAuthorization> => {
      const authorization = await callProvider(() => provider.getAuthorization(authorizationId));
      const capabilities = provider.capabilitiesOf?.(authorization) ?? provider.capabilities;
      return {
        ...authorization,
        maxCaptures: capabilities.maxCaptures,
        ...(capabilities.reauthorization === 'new-authorization' && {
          reauthorization: 'new-authorization' as const,
        }),
        ...(capabilities.sharedCaptureIds && { sharedCaptureIds: true as const }),
        ...(capabilities.capturesEndAtMax && { capturesEndAtMax: true as const }),
        ...(capabilities.overCapturePercent && { overCapturePercent: capabilities.overCapturePercent }),
        ...(capabilities.overCaptureAtMost && { overCaptureAtMost: capabilities.overCaptureAtMost }),
        ...(capabilities.extendedAuthorization && { extendedAuthorization: true as const }),
        ...(capabilities.incrementalAuthorization && { incrementable: true as const }),
        keyRetentionMs: capabilities.idempotencyKeyRetentionMs,
        ...(capabilities.honorPeriodMs !== undefined && { honorPeriodMs: capabilities.honorPeriodMs }),
      };
    },

    /** The idempotency key is mandatory here: it makes every retry of this activity capture at most once. */
    captureAuthorization: async (input: CaptureRequest): Promise<PaymentCapture> => {
      requireIdempotencyKey('captureAuthorization', input.idempotencyKey);
      return await callProvider(() => provider.captureAuthorization(input), 'capture', 'captures');
    },

    /** Like capture, the idempotency key is mandatory: every retry of this activity refunds at most once. */
    refundCapture: async (input: RefundRequest): Promise<Refund> => {
      requireIdempotencyKey('refundCapture', input.idempotencyKey);
      return await callProvider(() => provider.refundCapture(input), 'refund');
    },

    /** What a capture sent under its key did, read once the provider may have forgotten the key. */
    findCapture: (input: CaptureRequest): Promise<KeyedActionFinding<PaymentCapture>> =>
      callProvider(() => provider.findCapture(input)),

    /** What a refund sent under its key did, read once the provider may have forgotten the key. */
    findRefund: (input: RefundRequest): Promise<KeyedActionFinding<Refund>> =>
      callProvider(() => provider.findRefund(input)),

    /** What the provider holds of a lifecycle's references, read for its reconciliation. */
    readHoldings: (input: HoldingsRequest): Promise<ProviderHoldings> =>
      callProvider(() => provider.readHoldings(input)),

    /** Under its key, every retry voids at most once. */
    voidAuthorization: (input: VoidRequest): Promise<Authorization> =>
      callProvider(() => provider.voidAuthorization(input), 'void', 'voids'),

    /** Under its key, every retry raises the hold at most once. */
    incrementAuthorization: (input: IncrementRequest): Promise<Authorization> =>
      callProvider(() => {
        if (provider.incrementAuthorization) return provider.incrementAuthorization(input);
        throw ApplicationFailure.create({
          type: INCREMENT_UNSUPPORTED,
          message: `${provider.name} has no incremental authorization`,
          nonRetryable: true,
        });
      }, 'increment'),

    /** Under its key, every retry holds at most once. */
    reauthorizeAuthorization: (input: ReauthorizeRequest): Promise<Authorization> =>
      callProvider(() => provider.reauthorizeAuthorization(input), 'reauthorize', 'reauthorizations'),

    createWebhook: (request: { url: string; event_types: { name: string }[] }): Promise<Webhook> =>
      callProvider(() => subscriptions().createWebhook(request)),

    getWebhook: (webhookId: string): Promise<Webhook> =>
      callProvider(() => subscriptions().getWebhook(webhookId)),

    updateWebhook: (input: { webhookId: string; fields: WebhookSubscriptionChange[] }): Promise<Webhook> =>
      callProvider(() => subscriptions().updateWebhook(input.webhookId, input.fields)),

    listWebhooks: (anchorType?: string): Promise<{ webhooks: Webhook[] }> =>
      callProvider(() => subscriptions().listWebhooks(anchorType)),

    deleteWebhook: (webhookId: string): Promise<void> =>
      callProvider(() => subscriptions().deleteWebhook(webhookId)),

    /** The event types the provider offers a subscription, and those of them the lifecycle's events need. */
    listWebhookEventTypes: async (): Promise<WebhookEventTypeChoice> => {
      const { event_types } = await callProvider(() => subscriptions().listWebhookEventTypes());
      return { offered: event_types.map((type) => type.name), needed: [...provider.lifecycleEventTypes] };
    },
  };
}

export type PaymentsActivities = ReturnType<typeof createPaymentsActivities>;

/** A provider's activities under the names its lifecycles schedule them by (see providerActivityName). */
export function createProviderActivities(provider: PaymentsProvider): Record<string, unknown> {
  return underProviderNames(provider.name as ProviderName, createPaymentsActivities(provider));
}

/** One provider call; `operation` names it in the refusal counter, `outcomes` counts how it ended. */
export async function callProvider<T>(
  call: () => Promise<T>,
  operation?: string,
  outcomes?: BusinessCounter,
): Promise<T> {
  let outcome: CallOutcome = 'succeeded';
  try {
    return await call();
  } catch (error) {
    const failure = paymentsFailure(error);
    outcome = failure instanceof ApplicationFailure && failure.nonRetryable ? 'refused' : 'failed';
    if (outcome === 'refused' && operation) {
      count('providerRefusals', { issue: (failure as ApplicationFailure).type ?? 'UNKNOWN', operation });
    }
    throw failure;
  } finally {
    if (outcomes) count(outcomes, { outcome });
  }
}

/**
 * The one mapping of the port's errors to Temporal. A refusal becomes a non-retryable failure typed by the
 * provider's issue (e.g. AUTHORIZATION_ALREADY_CAPTURED) so workflows can branch on it; a transient error
 * stays retryable, and the provider's Retry-After overrides the retry policy's next delay.
 */
export function paymentsFailure(error: unknown): unknown {
  if (!(error instanceof ProviderError)) return error;
  return ApplicationFailure.create({
    type: error.type,
    message: error.message,
    nonRetryable: !error.retryable,
    details: error.details,
    ...(error.retryable && error.retryAfterMs !== undefined && { nextRetryDelay: error.retryAfterMs }),
  });
}
