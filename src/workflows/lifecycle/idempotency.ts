import {
  LifecycleFailure,
  keyReuseConflict,
  rememberedAnswer,
  type KeyedAnswer,
  type LifecycleOperation,
  type LifecycleState,
  type RequestFingerprint,
} from './definitions';
import { refuse } from './validation';

// Bounds the answers a lifecycle remembers, whatever their retention.
const KEYED_ANSWERS = 500;

/** One provider call at a time, so a timer's reauthorization never races a capture. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

type Running = Pick<KeyedAnswer, 'key' | 'operation' | 'request'> & { answer: Promise<unknown> };

/**
 * Payment-grade idempotency under the caller's key. Each attempt is its own Update; the key names the
 * answer. A key answered within its retention gets that answer; a key still running makes the retry wait
 * for the same answer; a key reused with other parameters is refused; a failed attempt is forgotten, so its
 * retry reaches the provider again (under the same Service-Request-Id).
 */
export class KeyedRequests {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly state: LifecycleState,
    private readonly retentionMs: number,
    private readonly queue: SerialQueue,
  ) {}

  /**
   * For validators: refuses a key reused with other parameters, and answers whether the key is already
   * answered or running (then the state need not allow the request again).
   */
  isKnown(operation: LifecycleOperation, key: string | undefined, request: RequestFingerprint): boolean {
    if (!key) return false;
    const first = rememberedAnswer(this.state, key, Date.now()) ?? this.running.get(key);
    if (!first) return false;
    const conflict = keyReuseConflict(first, operation, request);
    if (conflict) refuse(LifecycleFailure.keyReused, conflict);
    return true;
  }

  async once<T>(
    operation: LifecycleOperation,
    key: string | undefined,
    request: RequestFingerprint,
    work: () => Promise<T>,
  ): Promise<T> {
    if (!key) return this.queue.run(work);
    const remembered = rememberedAnswer(this.state, key, Date.now());
    if (remembered) return remembered.answer as T;
    const running = this.running.get(key);
    if (running) return running.answer as Promise<T>;

    const answer = this.queue.run(work);
    this.running.set(key, { key, operation, request, answer });
    try {
      const answered = await answer;
      this.remember({ key, operation, request, answer: answered });
      return answered;
    } finally {
      this.running.delete(key);
    }
  }

  private remember(entry: Omit<KeyedAnswer, 'keptUntil'>): void {
    const now = Date.now();
    const kept = this.state.keyedAnswers.filter((answer) => Date.parse(answer.keptUntil) > now);
    kept.push({ ...entry, keptUntil: new Date(now + this.retentionMs).toISOString() });
    this.state.keyedAnswers = kept.slice(-KEYED_ANSWERS);
  }
}
