/** A webhook delivery as the listener received it: its headers and its raw, unparsed body. */
export interface WebhookDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: string | Buffer;
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

/** The body's bytes without copying or consuming it; a string is taken as UTF-8, as it travelled. */
export function deliveryBodyBytes(delivery: WebhookDelivery): Buffer {
  return typeof delivery.body === 'string' ? Buffer.from(delivery.body, 'utf8') : delivery.body;
}
