import { z } from 'zod';
import { describeIssues, parseEnvelope } from '../parsing';
import { moneySchema } from '../resources';
import type { ParsedPaymentEvent, PaymentEvent, PaymentEventKind } from '../events';
import { refundCameBack } from '../movements';
import { capturedAuthorizationId, linksSchema, upLinkId } from './up-links';

// The event envelope of a verified delivery (PayPal's Notifications v1 shape). Loose: only the fields that
// route an event are required; everything else passes through unread.

const envelopeSchema = z.looseObject({
  id: z.string().min(1),
  event_type: z.string().min(1),
  create_time: z.string().optional(),
  resource: z.looseObject({}),
});

const authorizationResourceSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().optional(),
  amount: moneySchema.optional(),
  create_time: z.string().optional(),
});

const captureResourceSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().optional(),
  amount: moneySchema.optional(),
  final_capture: z.boolean().optional(),
  create_time: z.string().optional(),
  links: linksSchema,
});

/** The resource of PAYMENT.CAPTURE.REFUNDED and REVERSED: a refund, whose `up` link names its capture. */
const refundResourceSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().optional(),
  // A reversal may write what it takes back as a negative amount.
  amount: z
    .looseObject({ currency_code: z.string().length(3), value: z.string().regex(/^-?\d+(\.\d+)?$/) })
    .optional(),
  create_time: z.string().optional(),
  links: linksSchema,
});

/** PayPal's event names in the lifecycle's vocabulary: a DENIED capture and a DECLINED one are both declined. */
const eventKinds: ReadonlyMap<string, PaymentEventKind> = new Map([
  ['PAYMENT.AUTHORIZATION.CREATED', 'authorization.created'],
  ['PAYMENT.AUTHORIZATION.VOIDED', 'authorization.voided'],
  ['PAYMENT.CAPTURE.COMPLETED', 'capture.completed'],
  ['PAYMENT.CAPTURE.PENDING', 'capture.pending'],
  ['PAYMENT.CAPTURE.DENIED', 'capture.declined'],
  ['PAYMENT.CAPTURE.DECLINED', 'capture.declined'],
  ['PAYMENT.CAPTURE.REFUNDED', 'capture.refunded'],
  ['PAYMENT.CAPTURE.REVERSED', 'capture.reversed'],
]);

/**
 * The event types a PayPal webhook subscription asks for: all of the above but the created authorization's,
 * since a lifecycle starts from the API, not from that event.
 */
export const paypalLifecycleEventTypes: readonly string[] = [...eventKinds.keys()].filter(
  (name) => eventKinds.get(name) !== 'authorization.created',
);

/** The lifecycle's view of a verified delivery body, or why it concerns no authorization. */
export function parsePaymentEvent(body: string): ParsedPaymentEvent {
  const read = parseEnvelope(body, envelopeSchema, 'webhook event');
  if ('unroutable' in read) return read.unroutable;
  const { id, event_type: paypalEventType, resource } = read.envelope;
  const unroutable = (reason: string): ParsedPaymentEvent => ({
    routable: false,
    eventId: id,
    eventType: paypalEventType,
    reason,
  });
  const eventType = eventKinds.get(paypalEventType);
  if (!eventType) return unroutable(`${paypalEventType} concerns no authorization`);

  if (eventType.startsWith('authorization.')) {
    const parsed = authorizationResourceSchema.safeParse(resource);
    if (!parsed.success) return unroutable(`resource: ${describeIssues(parsed.error)}`);
    const authorization = parsed.data;
    return routable({
      id,
      eventType,
      authorizationId: authorization.id,
      status: authorization.status,
      amount: amountOf(authorization.amount),
      createTime: authorization.create_time,
    });
  }
  const refundedCaptureId = upLinkId(resource.links, 'captures');
  if (refundedCaptureId) {
    const parsed = refundResourceSchema.safeParse(resource);
    if (!parsed.success) return unroutable(`resource: ${describeIssues(parsed.error)}`);
    const refund = parsed.data;
    return routable({
      id,
      eventType,
      captureId: refundedCaptureId,
      refundId: refund.id,
      status: refund.status,
      movement: refundMovement(eventType, refund.status),
      amount: refund.amount && {
        currency_code: refund.amount.currency_code,
        value: refund.amount.value.replace(/^-/, ''),
      },
      createTime: refund.create_time,
    });
  }
  const parsed = captureResourceSchema.safeParse(resource);
  if (!parsed.success) return unroutable(`resource: ${describeIssues(parsed.error)}`);
  const capture = parsed.data;
  const authorizationId = capturedAuthorizationId(capture);
  if (!authorizationId) return unroutable('the capture names no authorization (related_ids or "up" link)');
  return routable({
    id,
    eventType,
    authorizationId,
    captureId: capture.id,
    status: capture.status,
    amount: amountOf(capture.amount),
    finalCapture: capture.final_capture,
    createTime: capture.create_time,
  });
}

/**
 * What a refund resource's event moves: PAYMENT.CAPTURE.REVERSED is the payer's bank taking the money back
 * (a canceled one gives it back); a refund FAILED or CANCELLED comes back to the merchant.
 */
function refundMovement(eventType: PaymentEventKind, status: string | undefined): PaymentEvent['movement'] {
  const returned = refundCameBack(status);
  if (eventType === 'capture.reversed') return returned ? 'dispute-reinstated' : 'dispute-withdrawn';
  return returned ? 'refund-returned' : 'refund';
}

/** Drops undefined fields: workflow payloads and histories stay minimal. */
function routable(event: PaymentEvent): ParsedPaymentEvent {
  const defined = Object.fromEntries(Object.entries(event).filter(([, value]) => value !== undefined));
  return { routable: true, event: defined as PaymentEvent };
}

function amountOf(money: z.infer<typeof moneySchema> | undefined): PaymentEvent['amount'] {
  return money && { currency_code: money.currency_code, value: money.value };
}
