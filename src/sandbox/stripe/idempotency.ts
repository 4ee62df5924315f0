import { createHash } from 'node:crypto';
import { ProviderError } from '../errors';
import type { ProviderAnswer } from '../idempotency';
import { stripeError } from './errors';

type Saved = { fingerprint: string; outcome: Promise<ProviderAnswer | ProviderError> };

/**
 * Stripe's idempotency: the first request under an Idempotency-Key is processed and its answer saved, an
 * error included; a later one with the same parameters gets that answer again; one with other parameters
 * (or another endpoint) gets 400 idempotency_error. Each operation is synchronous, so a duplicate arriving
 * while the first is in flight cannot interleave with it: it gets the saved answer.
 * A request refused before it ran (a fault's 500 or 429) saves nothing, so a retry processes it.
 */
export class StripeIdempotency {
  private readonly saved = new Map<string, Saved>();

  async run(
    key: string | undefined,
    request: { method: string; path: string; params: unknown },
    operation: () => ProviderAnswer,
  ): Promise<ProviderAnswer> {
    if (key === undefined) return operation();
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([request.method, request.path, request.params]))
      .digest('hex');
    const saved = this.saved.get(key);
    if (saved) {
      if (saved.fingerprint !== fingerprint) {
        throw stripeError(
          400,
          'idempotency_error',
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
        );
      }
      const outcome = await saved.outcome;
      if (outcome instanceof ProviderError) throw outcome;
      return outcome;
    }
    let outcome: ProviderAnswer | ProviderError;
    try {
      outcome = operation();
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      outcome = error;
    }
    this.saved.set(key, { fingerprint, outcome: Promise.resolve(outcome) });
    if (outcome instanceof ProviderError) throw outcome;
    return outcome;
  }
}
