import { z } from 'zod';
import type { ParsedPaymentEvent, PaymentEvent, PaymentEventKind } from '../events';
import { describeIssues, parseEnvelope } from '../parsing';
import { refundCameBack } from '../movements';
import { fromStripeAmount } from './money';
import { isoTime } from './resources';

// Stripe's `event` (id, type, created, data.object) mapped onto the lifecycle's event vocabulary
// (PaymentEventKind: capture.completed, authorization.voided, …).
// Loose: only what routes an event is required; everything else passes through unread.

/** The event types a Stripe webhook endpoint enables for the lifecycle: those the parser below routes. */
export const stripeLifecycleEventTypes: readonly string[] = [
  'payment_intent.amount_capturable_updated',
  'payment_intent.canceled',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'charge.captured',
  'charge.expired',
  'charge.refund.updated',
  'refund.created',
  'refund.updated',
  'charge.dispute.created',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
  'charge.dispute.closed',
];

const envelopeSchema = z.looseObject({
  id: z.string().min(1),
  object: z.literal('event'),
  type: z.string().min(1),
  created: z.number().int(),
  data: z.looseObject({ object: z.looseObject({ id: z.string().min(1) }) }),
});

const expandable = z.union([z.string(), z.looseObject({ id: z.string() })]).nullish();

const intentSchema = z.looseObject({
  id: z.string(),
  amount: z.number().int(),
  amount_received: z.number().int(),
  currency: z.string(),
  latest_charge: expandable,
  cancellation_reason: z.string().nullish(),
  created: z.number().int(),
});

const chargeSchema = z.looseObject({
  id: z.string(),
  amount_captured: z.number().int(),
  currency: z.string(),
  payment_intent: expandable,
  created: z.number().int(),
});

const refundSchema = z.looseObject({
  id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  charge: expandable,
  status: z.string().nullish(),
  created: z.number().int(),
});

const disputeSchema = z.looseObject({
  id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  charge: expandable,
  status: z.string(),
  created: z.number().int(),
});

const refundStatuses: Record<string, string> = {
  succeeded: 'COMPLETED',
  pending: 'PENDING',
  requires_action: 'PENDING',
  failed: 'FAILED',
  canceled: 'CANCELLED',
};

export type DisputeMovement = 'dispute-withdrawn' | 'dispute-reinstated' | 'dispute-inquiry';

/**
 * What a dispute event moves. An inquiry (`warning_*`) withdraws nothing; a dispute withdraws the disputed
 * amount when it opens (`funds_withdrawn`) and reinstates it when the merchant wins (`funds_reinstated`,
 * `won`); a lost one keeps what it withdrew.
 */
export function disputeMovement(type: string, status: string): DisputeMovement {
  if (status.startsWith('warning_') || status === 'prevented') return 'dispute-inquiry';
  if (type === 'charge.dispute.funds_reinstated' || status === 'won') return 'dispute-reinstated';
  return 'dispute-withdrawn';
}

/** The lifecycle's status words for a dispute's movement (a reinstated one reads CANCELLED, as before). */
export const disputeStatuses: Record<DisputeMovement, string> = {
  'dispute-withdrawn': 'COMPLETED',
  'dispute-reinstated': 'CANCELLED',
  'dispute-inquiry': 'INQUIRY',
};

function idOf(value: z.infer<typeof expandable>): string | undefined {
  if (!value) return undefined;
  return typeof value === 'string' ? value : value.id;
}

/** The lifecycle's view of a verified Stripe event body, or why it concerns no authorization. */
export function parseStripeEvent(body: string): ParsedPaymentEvent {
  const read = parseEnvelope(body, envelopeSchema, 'Stripe event');
  if ('unroutable' in read) return read.unroutable;
  const { id, type, data } = read.envelope;
  const unroutable = (reason: string): ParsedPaymentEvent => ({
    routable: false,
    eventId: id,
    eventType: type,
    reason,
  });
  const parse = <S extends z.ZodType>(schema: S): z.infer<S> | string => {
    const parsed = schema.safeParse(data.object);
    return parsed.success ? parsed.data : `data.object: ${describeIssues(parsed.error)}`;
  };

  switch (type) {
    case 'payment_intent.amount_capturable_updated':
    case 'payment_intent.canceled':
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const intent = parse(intentSchema);
      if (typeof intent === 'string') return unroutable(intent);
      // What the intent captured in all, into its charge: a multicapture lifecycle learns from it the
      // captures it did not make (the dashboard's).
      const total =
        type === 'payment_intent.succeeded' || type === 'payment_intent.amount_capturable_updated';
      const chargeId = idOf(intent.latest_charge);
      return routable({
        id,
        eventType: intentEventType(type, intent.cancellation_reason),
        authorizationId: intent.id,
        amount: fromStripeAmount(intent.amount, intent.currency),
        createTime: isoTime(intent.created),
        ...(total &&
          chargeId && {
            captureId: chargeId,
            capturedTotal: fromStripeAmount(intent.amount_received, intent.currency),
          }),
      });
    }
    case 'charge.captured':
    case 'charge.expired': {
      const charge = parse(chargeSchema);
      if (typeof charge === 'string') return unroutable(charge);
      const authorizationId = idOf(charge.payment_intent);
      if (!authorizationId) return unroutable('the charge names no payment_intent');
      if (type === 'charge.expired') {
        return routable({ id, eventType: 'authorization.expired', authorizationId });
      }
      // amount_captured: the charge's captures in all (one, unless the intent uses multicapture).
      return routable({
        id,
        eventType: 'capture.completed',
        authorizationId,
        captureId: charge.id,
        status: 'COMPLETED',
        amount: fromStripeAmount(charge.amount_captured, charge.currency),
        finalCapture: true,
        createTime: isoTime(charge.created),
      });
    }
    case 'charge.refund.updated':
    case 'refund.created':
    case 'refund.updated': {
      const refund = parse(refundSchema);
      if (typeof refund === 'string') return unroutable(refund);
      const captureId = idOf(refund.charge);
      if (!captureId) return unroutable('the refund names no charge');
      const status = refundStatuses[refund.status ?? ''] ?? 'PENDING';
      const returned = refundCameBack(status);
      return routable({
        id,
        eventType: 'capture.refunded',
        captureId,
        refundId: refund.id,
        status,
        movement: returned ? 'refund-returned' : 'refund',
        amount: fromStripeAmount(refund.amount, refund.currency),
        createTime: isoTime(refund.created),
      });
    }
    case 'charge.dispute.created':
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated':
    case 'charge.dispute.closed': {
      const dispute = parse(disputeSchema);
      if (typeof dispute === 'string') return unroutable(dispute);
      const captureId = idOf(dispute.charge);
      if (!captureId) return unroutable('the dispute names no charge');
      const movement = disputeMovement(type, dispute.status);
      return routable({
        id,
        eventType: 'capture.reversed',
        captureId,
        refundId: dispute.id,
        status: disputeStatuses[movement],
        movement,
        amount: fromStripeAmount(dispute.amount, dispute.currency),
        createTime: isoTime(dispute.created),
      });
    }
    case 'charge.refunded':
      return unroutable('charge.refunded names no refund: its refunds arrive as refund events');
    default:
      return unroutable(`${type} concerns no authorization`);
  }
}

function intentEventType(type: string, cancellationReason: string | null | undefined): PaymentEventKind {
  switch (type) {
    case 'payment_intent.amount_capturable_updated':
      return 'authorization.created';
    case 'payment_intent.canceled':
      return cancellationReason === 'expired' || cancellationReason === 'automatic'
        ? 'authorization.expired'
        : 'authorization.voided';
    case 'payment_intent.succeeded':
      return 'authorization.captured';
    default:
      return 'authorization.denied';
  }
}

/** Drops undefined fields: workflow payloads and histories stay minimal. */
function routable(event: PaymentEvent): ParsedPaymentEvent {
  const defined = Object.fromEntries(Object.entries(event).filter(([, value]) => value !== undefined));
  return { routable: true, event: defined as PaymentEvent };
}
