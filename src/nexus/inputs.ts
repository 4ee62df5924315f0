import { HandlerError } from 'nexus-rpc';
import { z } from 'zod';
import {
  authorizationParams,
  captureBody,
  idempotencyHeaders,
  reauthorizeBody,
  startLifecycleBody,
} from '../api/schemas';

// Operation inputs come from another namespace, so they pass the API's own schemas: same fields, same limits.

const idempotencyKey = z.object({ idempotencyKey: idempotencyHeaders.shape['idempotency-key'] });

export const startLifecycleInput = startLifecycleBody;
export const lifecycleRefInput = z.strictObject(authorizationParams.shape);
export const captureInput = captureBody.extend(lifecycleRefInput.shape).extend(idempotencyKey.shape);
export const reauthorizeInput = reauthorizeBody.extend(lifecycleRefInput.shape).extend(idempotencyKey.shape);
export const voidInput = lifecycleRefInput.extend(idempotencyKey.shape);

/** The input, or a BAD_REQUEST handler error (not retried) naming the field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
  throw new HandlerError('BAD_REQUEST', issues.join('; '));
}
