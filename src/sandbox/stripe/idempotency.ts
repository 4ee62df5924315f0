import { createHash } from 'node:crypto';
import { ProviderError } from '../errors';
import type { ProviderAnswer } from '../idempotency';
import { stripeError } from './errors';

type Saved = { fingerprint: string; savedAt: number; outcome: ProviderAnswer | ProviderError };

/** Stripe prunes a key at least 24 hours after its first request. */
export const STRIPE_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

const REPLAYED = { 'Idempotent-Replayed': 'true' };

/**
 * Stripe's idempotency: the first request under an Idempotency-Key is processed and its answer saved, an
 * error included; a later one with the same parameters gets that answer again, marked `Idempotent-Replayed:
 * true`; one with other parameters (or another endpoint) gets 400 idempotency_error. Each operation is
 * synchronous, so a duplicate arriving while the first is in flight cannot interleave with it: it gets the
 * saved answer. A request refused before it ran (a fault's 500 or 429) saves nothing, so a retry processes it.
 * A key is forgotten `retentionMs` after its first request: a request under it then is a new one.
 */
export class StripeIdempotency {
  private readonly saved = new Map<string, Saved>();

  constructor(
    private readonly now: () => Date,
    private readonly retentionMs = STRIPE_KEY_RETENTION_MS,
  ) {}

  async run(
    key: string | undefined,
    request: { method: string; path: string; params: unknown },
    operation: () => ProviderAnswer,
  ): Promise<ProviderAnswer> {
    if (key === undefined) return operation();
    const now = this.now().getTime();
    this.prune(now);
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
      return replayed(saved.outcome);
    }
    let outcome: ProviderAnswer | ProviderError;
    try {
      outcome = operation();
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      outcome = error;
    }
    this.saved.set(key, { fingerprint, savedAt: now, outcome });
    if (outcome instanceof ProviderError) throw outcome;
    return outcome;
  }

  private prune(now: number): void {
    for (const [key, saved] of this.saved) {
      if (now - saved.savedAt >= this.retentionMs) this.saved.delete(key);
    }
  }
}

/** The saved answer again, as Stripe replays it: the same status and body, an error included, marked replayed. */
function replayed(outcome: ProviderAnswer | ProviderError): ProviderAnswer {
  if (outcome instanceof ProviderError) {
    throw new ProviderError(outcome.statusCode, outcome.body, { ...outcome.headers, ...REPLAYED });
  }
  return { ...outcome, headers: { ...outcome.headers, ...REPLAYED } };
}
