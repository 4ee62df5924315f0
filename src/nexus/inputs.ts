import { HandlerError } from 'nexus-rpc';
import { z } from 'zod';
import {
  authorizationParams,
  captureBody,
  idempotencyKey,
  incrementBody,
  reauthorizeBody,
  startLifecycleBody,
} from '../api/schemas';

// Operation inputs come from another namespace, so they pass the API's own schemas: same fields, same limits.
// The key may be left out: the handlers default it to the Nexus request id.

const keyed = z.object({ idempotencyKey: idempotencyKey.optional() });

export const startLifecycleInput = startLifecycleBody;
export const lifecycleRefInput = z.strictObject(authorizationParams.shape);
export const captureInput = captureBody.extend(lifecycleRefInput.shape).extend(keyed.shape);
export const reauthorizeInput = reauthorizeBody.extend(lifecycleRefInput.shape).extend(keyed.shape);
export const voidInput = lifecycleRefInput.extend(keyed.shape);
export const incrementInput = incrementBody.extend(lifecycleRefInput.shape).extend(keyed.shape);

/** The input, or a BAD_REQUEST handler error (not retried) naming the field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
  throw new HandlerError('BAD_REQUEST', issues.join('; '));
}
