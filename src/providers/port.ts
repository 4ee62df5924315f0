import type { ParsedPaymentEvent, SignatureCheck } from './events';
import type { HoldingsRequest, ProviderHoldings } from './holdings';
import type { Authorization, Money, PaymentCapture, Refund, Webhook } from './resources';
import type { WebhookDelivery } from './webhook-delivery';

// What the lifecycle needs of any payments provider. The lifecycle's activities, the webhook verification
// and the tests depend on this port; each provider's wire format stays in its own src/providers/<name>/.

/** Capture part or all of an authorization; retries under the same key capture at most once. */
export type CaptureRequest = {
  authorizationId: string;
  amount: Money;
  /** True releases what remains of the authorization after this capture. */
  finalCapture: boolean;
  idempotencyKey: string;
  invoiceId?: string;
  noteToPayer?: string;
};

export type VoidRequest = { authorizationId: string; idempotencyKey: string };

/** Raise the hold to `amount`, its new total, without a new authorization (Stripe's incremental authorization). */
export type IncrementRequest = { authorizationId: string; amount: Money; idempotencyKey: string };

/** Hold `amount` again, on the provider's own terms (see ProviderCapabilities.reauthorization). */
export type ReauthorizeRequest = {
  authorizationId: string;
  amount: Money;
  idempotencyKey: string;
  /** Ask for an extended authorization where the provider offers it (Stripe's, if the card allows). */
  extendedAuthorization?: boolean;
};

/** Refund a capture: all that is not yet refunded when `amount` is absent. */
export type RefundRequest = {
  captureId: string;
  amount?: Money;
  idempotencyKey: string;
  invoiceId?: string;
  noteToPayer?: string;
};

/**
 * What the provider holds of a keyed capture or refund once it may have forgotten the key: the action sent
 * under it, nothing (then a new key may send it again), or that the provider cannot tell (why, for operators).
 */
export type KeyedActionFinding<Action> = { found: Action } | { found: null } | { unknown: string };

export type ProviderCapabilities = {
  /** Several partial captures of one authorization (PayPal: yes; Stripe: one, unless multicapture). */
  multipleCaptures: boolean;
  /** How far the captured total may exceed the authorized amount, in percent of it. */
  overCapturePercent: number;
  /** The most that percent may add, where the provider caps it in one currency (PayPal's 75 USD). */
  overCaptureAtMost?: Money;
  /** Whether a reauthorization's new hold can ask for an extended authorization (Stripe's, per card). */
  extendedAuthorization?: boolean;
  /** PayPal reauthorizes in place; Stripe holds anew on a new PaymentIntent, then cancels the old one. */
  reauthorization: 'reauthorize' | 'new-authorization';
  /**
   * How long the provider answers a repeated idempotency key with its first answer (Stripe 24 hours, PayPal
   * 45 days): a capture or refund sent again later is first looked for (findCapture, findRefund).
   */
  idempotencyKeyRetentionMs: number;
  /** How many captures one authorization takes; the lifecycle refuses the next before calling the provider. */
  maxCaptures: number;
  /**
   * Whether maxCaptures is the provider's own limit, so the capture that reaches it is sent final (Stripe's);
   * otherwise it is the lifecycle's bound (PayPal's limit is per account and not published).
   */
  capturesEndAtMax?: boolean;
  /**
   * Whether captures of one authorization answer the same capture id (Stripe's multicapture: the charge):
   * the lifecycle then gives each capture an id of its own and refunds the shared one.
   */
  sharedCaptureIds?: boolean;
  /** Whether the authorization's hold can be raised in place (Stripe's incremental authorization, per card). */
  incrementalAuthorization?: boolean;
  /**
   * How long the provider honors a hold's funds after it is made (PayPal's 3 days; a reauthorization after it
   * renews them). Absent: the funds are held until the hold ends (Stripe's capture_before).
   */
  honorPeriodMs?: number;
};

/** The delivery headers the webhook intake requires; two of them it reads itself. */
export type DeliveryHeaderNames = Record<string, string> & {
  /** One verification run per transmission id. */
  transmission_id: string;
  /** When the provider signed the delivery; too far from now is refused. */
  transmission_time: string;
};

/** What the intake makes of a delivery before any run: its id (one verification run per id), or why it is refused. */
export type DeliveryScreening = { id: string } | { refused: string };

/**
 * What the webhook intake (POST /webhooks/:provider) asks of a provider about a delivery, before any run starts
 * and without a provider call. The intake keeps the headers named here (a missing one refuses the delivery,
 * named), then screens it; the run verifies it (`verifyDelivery`).
 */
export interface DeliveryIntake {
  /** The provider's name in the registry: the delivery path's last segment. */
  readonly provider: string;
  /** The headers a delivery carries, each one required. */
  readonly headerNames: readonly string[];
  /** Paths the provider's deliveries also arrive at (from before the one intake). */
  readonly aliasPaths?: readonly string[];
  /**
   * How the run verifies a delivery where the provider fixes it (Stripe's: locally, by the endpoint's secrets,
   * under a subscription name of the intake's own); absent, the configured mode and subscription.
   */
  readonly verification?: { mode: 'api' | 'local'; webhookId: string };
  /**
   * The delivery's id, or the cheap refusal: garbled headers, a time outside the window, an unknown certificate
   * host, a signature checked here that fails. Rejects when a check cannot be made now (the answer is 503).
   */
  screen(delivery: WebhookDelivery<string>, receivedAt: Date): Promise<DeliveryScreening>;
}

/** Verify with the provider ('api') or without a round trip, by the provider's signature scheme ('local'). */
export type DeliveryVerifyMode = 'api' | 'local';

/** One change of a subscription, as a JSON Patch operation, e.g. `{ op: 'replace', path: '/url', value: '…' }`. */
export type WebhookSubscriptionChange = { op: 'replace'; path: string; value: unknown };

/** The provider's webhook subscriptions, for providers that manage them through their API. */
export interface WebhookSubscriptions {
  createWebhook(request: { url: string; event_types: { name: string }[] }): Promise<Webhook>;
  getWebhook(webhookId: string): Promise<Webhook>;
  updateWebhook(webhookId: string, changes: WebhookSubscriptionChange[]): Promise<Webhook>;
  listWebhooks(anchorType?: string): Promise<{ webhooks: Webhook[] }>;
  deleteWebhook(webhookId: string): Promise<void>;
  listWebhookEventTypes(): Promise<{ event_types: { name: string }[] }>;
}

/**
 * A payments provider behind the port. Every operation rejects with a {@link ProviderError} (already
 * classified) or with an error a retry may cure; a resolved value is a complete resource of the vocabulary.
 */
export interface PaymentsProvider {
  /** The provider's name in the registry, e.g. 'paypal'. */
  readonly name: string;
  /** What the lifecycle may rely on, declared by the provider rather than guessed. */
  readonly capabilities: ProviderCapabilities;
  /**
   * What the lifecycle may rely on for one authorization, when that differs by authorization (Stripe's
   * multicapture is the card's to allow); absent: `capabilities`.
   */
  capabilitiesOf?(authorization: Authorization): ProviderCapabilities;
  /** The headers a delivery of this provider carries. */
  readonly deliveryHeaders: DeliveryHeaderNames;
  /** The authorization as the provider holds it now. */
  getAuthorization(authorizationId: string): Promise<Authorization>;
  /** A repeat under the same idempotency key answers the first capture. */
  captureAuthorization(request: CaptureRequest): Promise<PaymentCapture>;
  /** An authorization already voided counts as voided. */
  voidAuthorization(request: VoidRequest): Promise<Authorization>;
  /** Answers the authorization that now holds the money (a new id). */
  reauthorizeAuthorization(request: ReauthorizeRequest): Promise<Authorization>;
  /**
   * Answers the authorization with its raised amount; a provider without incremental authorizations has none
   * (the lifecycle refuses an increment of its holds before any call).
   */
  incrementAuthorization?(request: IncrementRequest): Promise<Authorization>;
  /** A repeat under the same idempotency key answers the first refund. */
  refundCapture(request: RefundRequest): Promise<Refund>;
  /** The capture `request` made under its key, read from the provider once the key may be forgotten. */
  findCapture(request: CaptureRequest): Promise<KeyedActionFinding<PaymentCapture>>;
  /** The refund `request` made under its key, read from the provider once the key may be forgotten. */
  findRefund(request: RefundRequest): Promise<KeyedActionFinding<Refund>>;
  /** The capture as the provider holds it now. */
  getCapture(captureId: string): Promise<PaymentCapture>;
  /** The refund as the provider holds it now. */
  getRefund(refundId: string): Promise<Refund>;
  /**
   * What the provider holds now of a lifecycle's authorizations, captures and refunds (reconciliation): read,
   * never changed; a reference it does not know is `absent`, not a rejection.
   */
  readHoldings(request: HoldingsRequest): Promise<ProviderHoldings>;
  /** The lifecycle's view of a verified delivery's body, or why it concerns no authorization. */
  parsePaymentEvent(body: string): ParsedPaymentEvent;
  /**
   * The provider's event types whose deliveries carry the lifecycle's events (PaymentEventKind): what its
   * webhook subscription asks for, through `subscriptions` or as the operator sets the endpoint up.
   */
  readonly lifecycleEventTypes: readonly string[];
  /** SUCCESS or FAILURE alike in both modes for the same delivery, signed for the subscription `webhookId`. */
  verifyDelivery(
    delivery: WebhookDelivery,
    webhookId: string,
    mode: DeliveryVerifyMode,
  ): Promise<SignatureCheck>;
  /** Absent when the provider's subscriptions are not managed through its API. */
  readonly subscriptions?: WebhookSubscriptions;
}

/**
 * A failure the provider's adapter has classified: `type` is the provider's issue for a refusal (e.g.
 * AUTHORIZATION_ALREADY_CAPTURED), `retryable` says whether the same call may succeed later.
 */
export class ProviderError extends Error {
  readonly type: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  /** What the provider said, for operators; never credentials. */
  readonly details: unknown[];

  constructor(init: {
    message: string;
    type: string;
    retryable: boolean;
    retryAfterMs?: number;
    details: unknown[];
  }) {
    super(init.message);
    this.name = 'ProviderError';
    this.type = init.type;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.details = init.details;
  }
}
