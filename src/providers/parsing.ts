import type { z } from 'zod';
import type { ParsedPaymentEvent } from './events';

/** Names every problem of a zod failure by its path, e.g. `amount.value: Invalid input: expected string`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}

/** A verified body's envelope as `schema` reads it, or why it is no `kind` (e.g. "Stripe event"). */
export function parseEnvelope<S extends z.ZodType>(
  body: string,
  schema: S,
  kind: string,
): { envelope: z.output<S> } | { unroutable: ParsedPaymentEvent } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { unroutable: { routable: false, reason: 'the body is not JSON' } };
  }
  const envelope = schema.safeParse(json);
  if (!envelope.success) {
    return { unroutable: { routable: false, reason: `not a ${kind}: ${describeIssues(envelope.error)}` } };
  }
  return { envelope: envelope.data };
}
