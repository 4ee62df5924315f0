export const EMPTY_DELIVERY_BODY_MESSAGE = 'A webhook cannot be verified for a request with an empty body';

/**
 * A webhook delivery as a listener receives it: its headers and its raw, unparsed body, as bytes or as the
 * text they spell. The webhookVerification workflow takes it with its body as text (`WebhookDelivery<string>`),
 * so the delivery travels as plain JSON.
 */
export interface WebhookDelivery<Body extends string | Buffer = string | Buffer> {
  headers: Record<string, string | string[] | undefined>;
  body: Body;
}

/**
 * Case-insensitive header lookup. A repeated header yields its first value: signature headers are
 * single-valued, and joining repeats with ", " would only produce a value no provider signed.
 */
export function deliveryHeader(delivery: WebhookDelivery, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(delivery.headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/**
 * The body's bytes without copying or consuming it; a string is taken as UTF-8, as it travelled. A delivery
 * that reached us without a body (null or undefined, whatever its type says) has no bytes.
 */
export function deliveryBodyBytes(delivery: WebhookDelivery): Buffer {
  const body = delivery.body as WebhookDelivery['body'] | null | undefined;
  if (body == null) return Buffer.alloc(0);
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}
