import { ProviderError } from './errors';

export interface ProviderAnswer {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Outcome = { answer: ProviderAnswer } | { refusal: ProviderError };

/**
 * Request-id idempotency: the first request with an id is processed, every later one with the same id gets
 * the first answer (a refusal included) and changes nothing. The outcome is recorded as a promise before
 * any await, so a duplicate arriving while the first is still in flight waits for it instead of racing it.
 */
export class RequestIdempotency {
  private readonly outcomes = new Map<string, Promise<Outcome>>();

  async run(key: string | undefined, operation: () => ProviderAnswer): Promise<ProviderAnswer> {
    if (key === undefined) return operation();
    let outcome = this.outcomes.get(key);
    if (!outcome) {
      outcome = settle(operation);
      this.outcomes.set(key, outcome);
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
