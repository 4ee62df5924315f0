import type { PaymentsDialectName } from '../../providers/paypal/dialects';
import { formatMoney } from '../money';
import type { AuthorizationRecord, CaptureRecord, RefundRecord } from '../records';
import type { WebhookRecord } from '../webhooks';
import { eventTypeDescription } from './event-types';

/** The JSON the provider answers with, shaped like PayPal's Payments v2 and Notifications v1 resources. */

export interface Link {
  href: string;
  rel: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
}

/** PayPal writes times to the second: `2026-05-01T12:00:00Z`. */
export function providerTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function relatedIds(ids: Record<string, string | undefined>) {
  const present = Object.fromEntries(Object.entries(ids).filter(([, id]) => id !== undefined));
  return Object.keys(present).length > 0 ? { supplementary_data: { related_ids: present } } : {};
}

/**
 * In `paypal` mode an expired authorization shows the status it had (PayPal's enum has no EXPIRED): its
 * `expiration_time` is past and captures, reauthorizations and voids are refused with AUTHORIZATION_EXPIRED.
 */
export function authorizationResource(
  record: AuthorizationRecord,
  baseUrl: string,
  dialect: PaymentsDialectName,
) {
  const self = `${baseUrl}/v2/payments/authorizations/${record.id}`;
  const links: Link[] = [{ href: self, rel: 'self', method: 'GET' }];
  const open = record.status === 'CREATED' || record.status === 'PARTIALLY_CAPTURED';
  if (open && record.intent === 'AUTHORIZE' && !record.reauthorizationId) {
    links.push({ href: `${self}/capture`, rel: 'capture', method: 'POST' });
  }
  if (open && !record.parentId) links.push({ href: `${self}/void`, rel: 'void', method: 'POST' });
  if (open && !record.parentId && !record.reauthorizationId) {
    links.push({ href: `${self}/reauthorize`, rel: 'reauthorize', method: 'POST' });
  }
  if (record.reauthorizationId) {
    const href = `${baseUrl}/v2/payments/authorizations/${record.reauthorizationId}`;
    links.push({ href, rel: 'reauthorization', method: 'GET' });
  }
  return {
    id: record.id,
    status: dialect === 'paypal' ? (record.statusBeforeExpiry ?? record.status) : record.status,
    amount: formatMoney(record.amount),
    ...(record.invoiceId !== undefined && { invoice_id: record.invoiceId }),
    ...(record.customId !== undefined && { custom_id: record.customId }),
    expiration_time: providerTime(record.expirationTime),
    create_time: providerTime(record.createTime),
    update_time: providerTime(record.updateTime),
    links,
    ...relatedIds({ order_id: record.orderId }),
  };
}

export function captureResource(record: CaptureRecord, authorization: AuthorizationRecord, baseUrl: string) {
  const links: Link[] = [
    { href: `${baseUrl}/v2/payments/captures/${record.id}`, rel: 'self', method: 'GET' },
    { href: `${baseUrl}/v2/payments/authorizations/${record.authorizationId}`, rel: 'up', method: 'GET' },
  ];
  return {
    id: record.id,
    status: record.status,
    ...(record.status === 'PENDING' && { status_details: { reason: 'PENDING_REVIEW' } }),
    amount: formatMoney(record.amount),
    final_capture: record.finalCapture,
    ...(record.invoiceId !== undefined && { invoice_id: record.invoiceId }),
    ...(authorization.customId !== undefined && { custom_id: authorization.customId }),
    create_time: providerTime(record.createTime),
    update_time: providerTime(record.updateTime),
    links,
    ...relatedIds({ authorization_id: record.authorizationId, order_id: authorization.orderId }),
  };
}

export function refundResource(record: RefundRecord, baseUrl: string) {
  const links: Link[] = [
    { href: `${baseUrl}/v2/payments/refunds/${record.id}`, rel: 'self', method: 'GET' },
    { href: `${baseUrl}/v2/payments/captures/${record.captureId}`, rel: 'up', method: 'GET' },
  ];
  const amount = formatMoney(record.amount);
  return {
    id: record.id,
    amount,
    ...(record.invoiceId !== undefined && { invoice_id: record.invoiceId }),
    ...(record.customId !== undefined && { custom_id: record.customId }),
    ...(record.noteToPayer !== undefined && { note_to_payer: record.noteToPayer }),
    seller_payable_breakdown: {
      gross_amount: amount,
      net_amount: amount,
      total_refunded_amount: formatMoney(record.totalRefunded),
    },
    status: record.status,
    create_time: providerTime(record.createTime),
    update_time: providerTime(record.updateTime),
    links,
  };
}

export function webhookResource(record: WebhookRecord, baseUrl: string) {
  const self = `${baseUrl}/v1/notifications/webhooks/${record.id}`;
  const links: Link[] = [
    { href: self, rel: 'self', method: 'GET' },
    { href: self, rel: 'update', method: 'PATCH' },
    { href: self, rel: 'delete', method: 'DELETE' },
  ];
  return {
    id: record.id,
    url: record.url,
    event_types: record.eventTypes.map((name) => ({ name, description: eventTypeDescription(name) })),
    links,
  };
}
