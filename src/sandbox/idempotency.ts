import { ProviderError } from './errors';

export interface ProviderAnswer {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Outcome = { answer: ProviderAnswer } | { refusal: ProviderError };

/** How long the sandbox keeps a PayPal-Request-Id: the 45 days the PayPal adapter counts on. */
export const PAYPAL_REQUEST_ID_RETENTION_MS = 45 * 24 * 60 * 60 * 1000;

/**
 * Request-id idempotency: the first request with an id is processed, every later one with the same id gets
 * the first answer (a refusal included) and changes nothing. The outcome is recorded as a promise before
 * any await, so a duplicate arriving while the first is still in flight waits for it instead of racing it.
 * An id is forgotten `retentionMs` after its first request: a request under it then is a new one.
 */
export class RequestIdempotency {
  private readonly outcomes = new Map<string, { savedAt: number; outcome: Promise<Outcome> }>();

  constructor(
    private readonly now: () => Date = () => new Date(),
    private readonly retentionMs = PAYPAL_REQUEST_ID_RETENTION_MS,
  ) {}

  async run(key: string | undefined, operation: () => ProviderAnswer): Promise<ProviderAnswer> {
    if (key === undefined) return operation();
    const now = this.now().getTime();
    for (const [id, saved] of this.outcomes) {
      if (now - saved.savedAt >= this.retentionMs) this.outcomes.delete(id);
    }
    let outcome = this.outcomes.get(key)?.outcome;
    if (!outcome) {
      outcome = settle(operation);
      this.outcomes.set(key, { savedAt: now, outcome });
      // An unexpected failure is not an answer to replay: the next attempt processes the request again.
      outcome.catch(() => this.outcomes.delete(key));
    }
    const settled = await outcome;
    if ('refusal' in settled) throw settled.refusal;
    return settled.answer;
  }
}

function settle(operation: () => ProviderAnswer): Promise<Outcome> {
  try {
    return Promise.resolve({ answer: operation() });
  } catch (error) {
    if (error instanceof ProviderError) return Promise.resolve({ refusal: error });
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
