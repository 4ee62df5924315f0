import { createHmac, timingSafeEqual } from 'node:crypto';

// Stripe's delivery signature as the intake reads it, before any run starts: `Stripe-Signature:
// t=<unix>,v1=<hex>[,v1=<hex>…]`, each v1 an HMAC-SHA256 of `<t>.<body>` under one of the endpoint's
// secrets. The run verifies again in the worker, through the port (the adapter uses the official SDK).

export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature';
/** Stripe's default tolerance: a `t=` further than this from now is refused (a replay). */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;

/** What a `Stripe-Signature` header says: when it was signed (unix seconds) and its v1 signatures. */
export interface StripeSignatureParts {
  timestamp: number;
  signatures: string[];
}

/**
 * Reads `t=<unix>,v1=<hex>[,v1=<hex>…]`; other schemes (v0) are ignored, as Stripe asks. A header without a
 * whole-number `t=` or without a 64-hex-digit `v1=` is garbled: the answer says why, as text.
 */
export function readStripeSignatureHeader(header: string): StripeSignatureParts | string {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    const key = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return 'not one whole-number t=';
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(value)) return 'a v1= that is not 64 hex digits';
      signatures.push(value);
    }
  }
  if (timestamp === undefined) return 'no t=';
  if (signatures.length === 0) return 'no v1= signature';
  return { timestamp, signatures };
}

/** Whether one of the header's v1 signatures is the HMAC of `t.body` under one of `secrets` (any rotation). */
export function signedByEndpoint(
  parts: StripeSignatureParts,
  body: string,
  secrets: readonly string[],
): boolean {
  const signed = Buffer.from(`${parts.timestamp}.${body}`, 'utf8');
  const given = parts.signatures.map((hex) => Buffer.from(hex, 'hex'));
  return secrets.some((secret) => {
    const expected = createHmac('sha256', secret).update(signed).digest();
    return given.some((signature) => timingSafeEqual(signature, expected));
  });
}
