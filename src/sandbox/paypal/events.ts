import type { PaymentsDialectName } from '../../providers/paypal/dialects';
import type { AuthorizationLedger } from '../ledger';
import { formatMoney } from '../money';
import type { LedgerEvent } from '../records';
import { eventId } from './ids';
import { authorizationResource, captureResource, providerTime, refundResource, type Link } from './resources';

/** The envelope of a webhook event, as PayPal's Notifications v1 sends it. */
export interface WebhookEvent {
  id: string;
  event_version: '1.0';
  create_time: string;
  resource_type: 'authorization' | 'capture' | 'refund';
  resource_version: '2.0';
  event_type: string;
  summary: string;
  resource: unknown;
  links: Link[];
}

function amountText(money: ReturnType<typeof formatMoney>): string {
  return `${money.value} ${money.currency_code}`;
}

export function webhookEvent(
  event: LedgerEvent,
  ledger: AuthorizationLedger,
  baseUrl: string,
  now: Date,
  dialect: PaymentsDialectName,
): WebhookEvent {
  const id = eventId();
  const envelope = {
    id,
    event_version: '1.0' as const,
    create_time: providerTime(now),
    resource_version: '2.0' as const,
    event_type: event.type,
    links: [
      { href: `${baseUrl}/v1/notifications/webhooks-events/${id}`, rel: 'self', method: 'GET' as const },
    ],
  };
  if ('capture' in event) {
    const authorization = ledger.authorization(event.capture.authorizationId);
    const amount = amountText(formatMoney(event.capture.amount));
    const summary = {
      'PAYMENT.CAPTURE.COMPLETED': `Payment completed for ${amount}`,
      'PAYMENT.CAPTURE.PENDING': `Payment pending for ${amount}`,
      'PAYMENT.CAPTURE.DENIED': `A payment capture for ${amount} was denied`,
    }[event.type];
    const resource = captureResource(event.capture, authorization, baseUrl);
    return { ...envelope, resource_type: 'capture', summary, resource };
  }
  if ('refund' in event) {
    const amount = amountText(formatMoney(event.refund.amount));
    const done = event.type === 'PAYMENT.CAPTURE.REFUNDED' ? 'refunded' : 'reversed';
    const summary =
      event.refund.status === 'COMPLETED'
        ? `A ${amount} capture payment was ${done}`
        : `A ${amount} refund of a capture payment is ${event.refund.status}`;
    return { ...envelope, resource_type: 'refund', summary, resource: refundResource(event.refund, baseUrl) };
  }
  const amount = amountText(formatMoney(event.authorization.amount));
  const summary =
    event.type === 'PAYMENT.AUTHORIZATION.CREATED'
      ? `A payment authorization was created for ${amount}`
      : `A payment authorization for ${amount} was voided`;
  const resource = authorizationResource(event.authorization, baseUrl, dialect);
  return { ...envelope, resource_type: 'authorization', summary, resource };
}
