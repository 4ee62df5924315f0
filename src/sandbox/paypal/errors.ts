import { randomBytes } from 'node:crypto';
import type { ErrorBody } from '../errors';

/** PayPal's reference for one error answer, as its `debug_id`. */
export function debugId(): string {
  return randomBytes(7).toString('hex').slice(0, 13);
}

/** PayPal's error body: `{name, message, details?, debug_id}`. */
export function errorBody(error: ErrorBody): ErrorBody & { debug_id: string } {
  return { ...error, debug_id: debugId() };
}
