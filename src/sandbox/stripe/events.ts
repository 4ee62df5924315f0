import type { DeliveryEvent } from '../deliveries';
import { stripeId } from './books';
import type { StripeBookEvent } from './records';
import {
  chargeResource,
  disputeResource,
  paymentIntentResource,
  refundResource,
  STRIPE_API_VERSION,
} from './resources';

/** Every event type the Stripe mode delivers; a webhook endpoint subscribes to these or to `*`. */
export const stripeEventTypes = [
  'payment_intent.amount_capturable_updated',
  'payment_intent.canceled',
  'payment_intent.succeeded',
  'charge.captured',
  'charge.expired',
  'charge.refunded',
  'refund.created',
  'refund.updated',
  'refund.failed',
  'charge.refund.updated',
  'charge.dispute.created',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
] as const;

/** Stripe's `event` for a change in the books: its data.object is the resource as it is now. */
export function stripeEvent(event: StripeBookEvent, now: Date): DeliveryEvent {
  const object = (() => {
    if ('intent' in event) return paymentIntentResource(event.intent, undefined);
    if ('charge' in event) return chargeResource(event.charge);
    if ('refund' in event) return refundResource(event.refund);
    return disputeResource(event.dispute);
  })();
  const id = stripeId('evt');
  return {
    id,
    type: event.type,
    body: {
      id,
      object: 'event',
      api_version: STRIPE_API_VERSION,
      created: Math.floor(now.getTime() / 1000),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type: event.type,
    },
  };
}
