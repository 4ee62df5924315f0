import type { PaymentsProvider, ProviderCapabilities, WebhookSubscriptions } from '../port';
import { CertificateCache } from './certificate-cache';
import type { PayPalClient } from './client';
import { classified } from './failures';
import { readPaypalHoldings } from './holdings';
import { verifyDeliveryLocally } from './local-verification';
import { parsePaymentEvent, paypalLifecycleEventTypes } from './payment-event';
import { capturedAuthorizationId } from './up-links';

const DAY_MS = 24 * 60 * 60 * 1000;

export const paypalCapabilities: ProviderCapabilities = {
  multipleCaptures: true,
  // PayPal captures up to 115% of the authorized amount, at most 75 USD more.
  overCapturePercent: 15,
  overCaptureAtMost: { currency_code: 'USD', value: '75.00' },
  reauthorization: 'reauthorize',
  // PayPal answers a repeated PayPal-Request-Id with its first answer for 45 days.
  idempotencyKeyRetentionMs: 45 * DAY_MS,
  // PayPal's limit is set per account and not published (MAX_CAPTURE_COUNT_EXCEEDED past it); 100 is the
  // lifecycle's own bound, which keeps its captures (carried over continue-as-new) a bounded list.
  maxCaptures: 100,
  // PayPal honors an authorization's funds for 3 days of its 29: a reauthorization after them renews them.
  honorPeriodMs: 3 * DAY_MS,
};

export interface PaypalProviderOptions {
  /** Hosts a delivery's cert_url may name in local verification mode. */
  certificateHosts: readonly string[];
}

/**
 * PayPal behind the port, over its client: builds PayPal's request bodies from the port's neutral requests,
 * sends the idempotency key as the request id (PayPal-Request-Id, or the spec dialect's header) and answers
 * PayPal's resources as they are (a superset of the lifecycle's vocabulary).
 */
export function paypalProvider(client: PayPalClient, options: PaypalProviderOptions): PaymentsProvider {
  const certificates = new CertificateCache({ allowedHosts: options.certificateHosts });
  const headerNames = client.dialect.transmissionHeaders;
  return {
    name: 'paypal',
    capabilities: paypalCapabilities,
    deliveryHeaders: headerNames,

    getAuthorization: (authorizationId) => classified(() => client.getAuthorization(authorizationId)),

    captureAuthorization: (request) =>
      classified(() =>
        client.captureAuthorization(
          request.authorizationId,
          {
            amount: request.amount,
            final_capture: request.finalCapture,
            ...(request.invoiceId ? { invoice_id: request.invoiceId } : {}),
            ...(request.noteToPayer ? { note_to_payer: request.noteToPayer } : {}),
          },
          request.idempotencyKey,
        ),
      ),

    voidAuthorization: (request) =>
      classified(() => client.voidAuthorization(request.authorizationId, request.idempotencyKey)),

    reauthorizeAuthorization: (request) =>
      classified(() =>
        client.reauthorizeAuthorization(
          request.authorizationId,
          { currency: request.amount.currency_code, total: request.amount.value },
          request.idempotencyKey,
        ),
      ),

    refundCapture: (request) =>
      classified(() =>
        client.refundCapture(
          request.captureId,
          {
            ...(request.amount ? { amount: request.amount } : {}),
            ...(request.invoiceId ? { invoice_id: request.invoiceId } : {}),
            ...(request.noteToPayer ? { note_to_payer: request.noteToPayer } : {}),
          },
          request.idempotencyKey,
        ),
      ),

    // PayPal finds no capture or refund by its request id: an authorization still CREATED (or PENDING) has no
    // capture, and a capture still COMPLETED no refund; past that it cannot tell whose they were.
    findCapture: (request) =>
      classified(async () => {
        const authorization = await client.getAuthorization(request.authorizationId);
        if (authorization.status === 'CREATED' || authorization.status === 'PENDING') return { found: null };
        return {
          unknown: `authorization ${authorization.id} is ${authorization.status}, and PayPal does not say under which request id it was captured`,
        };
      }),

    findRefund: (request) =>
      classified(async () => {
        const capture = await client.getCapture(request.captureId);
        if (capture.status === 'COMPLETED') return { found: null };
        return {
          unknown: `capture ${capture.id} is ${capture.status}, and PayPal does not say under which request id it was refunded`,
        };
      }),

    getCapture: (captureId) =>
      classified(async () => {
        const capture = await client.getCapture(captureId);
        const authorizationId = capturedAuthorizationId(capture);
        return authorizationId ? { ...capture, authorization_id: authorizationId } : capture;
      }),
    getRefund: (refundId) => classified(() => client.getRefund(refundId)),
    // PayPal lists no refunds of a capture: the read knows only the refunds the lifecycle knows.
    readHoldings: (request) => classified(() => readPaypalHoldings(client, request)),
    parsePaymentEvent,
    lifecycleEventTypes: paypalLifecycleEventTypes,

    verifyDelivery: (delivery, webhookId, mode) =>
      mode === 'api'
        ? classified(() => client.verifyWebhookSignature(delivery, webhookId))
        : verifyDeliveryLocally(delivery, webhookId, headerNames, certificates),

    subscriptions: paypalSubscriptions(client),
  };
}

function paypalSubscriptions(client: PayPalClient): WebhookSubscriptions {
  return {
    createWebhook: (request) => classified(() => client.createWebhook(request)),
    getWebhook: (webhookId) => classified(() => client.getWebhook(webhookId)),
    updateWebhook: (webhookId, changes) => classified(() => client.updateWebhook(webhookId, changes)),
    listWebhooks: (anchorType) => classified(() => client.listWebhooks(anchorType)),
    deleteWebhook: (webhookId) => classified(() => client.deleteWebhook(webhookId)),
    listWebhookEventTypes: () => classified(() => client.listWebhookEventTypes()),
  };
}
