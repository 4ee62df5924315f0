import type { TransmissionHeaderNames } from './dialects';
import { PaymentsApiError } from './errors';
import {
  deliveryBodyBytes,
  deliveryHeader,
  EMPTY_DELIVERY_BODY_MESSAGE,
  type WebhookDelivery,
} from '../webhook-delivery';

const transmissionFields = [
  'auth_algo',
  'cert_url',
  'transmission_id',
  'transmission_sig',
  'transmission_time',
] as const satisfies readonly (keyof TransmissionHeaderNames)[];

/**
 * The body of a verify-webhook-signature request as bytes. The delivery body is spliced in as
 * `webhook_event` without a JSON round trip: the signature covers the exact bytes, and parsing would
 * lose key order, `1.0`, integers beyond 2^53, unicode escapes and whitespace. Empty fields are omitted.
 * The delivery is only read, never modified.
 */
export function webhookVerificationRequestBody(
  delivery: WebhookDelivery,
  webhookId: string,
  headerNames: TransmissionHeaderNames,
): Buffer {
  const event = deliveryBodyBytes(delivery);
  if (event.length === 0) {
    throw new PaymentsApiError({ kind: 'invalid-request', message: EMPTY_DELIVERY_BODY_MESSAGE });
  }
  assertJsonDocument(event);

  const members: string[] = [];
  for (const field of transmissionFields) {
    const value = deliveryHeader(delivery, headerNames[field]);
    if (value) members.push(`${JSON.stringify(field)}:${JSON.stringify(value)}`);
  }
  if (webhookId) members.push(`"webhook_id":${JSON.stringify(webhookId)}`);
  members.push('"webhook_event":');

  return Buffer.concat([Buffer.from(`{${members.join(',')}`, 'utf8'), event, Buffer.from('}', 'utf8')]);
}

// Splicing a non-JSON body would send a malformed request; the parse result is discarded on purpose.
function assertJsonDocument(event: Buffer): void {
  try {
    JSON.parse(event.toString('utf8'));
  } catch {
    throw new PaymentsApiError({
      kind: 'invalid-request',
      message: 'A webhook cannot be verified for a request whose body is not a JSON document',
    });
  }
}
