import { formatMinorUnits, toMinorUnits } from '../../currency-decimals';
import { providerRequestIdRetention } from '../../duration-bounds';
import {
  LifecycleFailure,
  type CaptureInput,
  type KeyedAnswer,
  type KeyedAnswerLookup,
  type KeyedAnswerQuestion,
  type LifecycleOperation,
  type LifecycleState,
  type ReauthorizeInput,
  type RefundInput,
  type RequestFingerprint,
  type VoidInput,
} from './definitions';
import { refuse } from './validation';

// Answers kept under the caller's Idempotency-Key, as Stripe keeps them: a retry within the retention gets
// the first answer, a key reused for another request is refused, a failed attempt is forgotten. An answer is
// kept at least as long as the provider honours its request id, and none is evicted to make room: a new key
// is refused instead, so a forgotten key is never the provider's stale replay.

// Bounds the answers a lifecycle remembers, whatever their retention.
const KEYED_ANSWERS = 500;

// Capture, refund and reauthorize move money: a keyless retry would move it again.
const keyRequired: readonly LifecycleOperation[] = ['capture', 'refund', 'reauthorize'];

/** The request as a retry must repeat it: the fields given, amounts with the currency's decimals. */
export function requestFingerprint(
  request: CaptureInput | ReauthorizeInput | VoidInput | RefundInput,
  currency: string,
): RequestFingerprint {
  const { idempotencyKey: _idempotencyKey, ...fields } = request as CaptureInput;
  const fingerprint: RequestFingerprint = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const minorUnits = name === 'amount' ? toMinorUnits(String(value), currency) : undefined;
    fingerprint[name] = minorUnits === undefined ? value : formatMinorUnits(minorUnits, currency);
  }
  return fingerprint;
}

/** Why a retry under a remembered key is not the same request (naming the field), or undefined if it is. */
function keyReuseConflict(
  first: Pick<KeyedAnswer, 'idempotencyKey' | 'operation' | 'request'>,
  operation: LifecycleOperation,
  request: RequestFingerprint,
): string | undefined {
  const reused = `Idempotency-Key "${first.idempotencyKey}" was first used`;
  if (first.operation !== operation) return `${reused} for a ${first.operation}, not a ${operation}`;
  for (const field of new Set([...Object.keys(first.request), ...Object.keys(request)])) {
    const before = first.request[field];
    const now = request[field];
    if (before !== now) {
      const shown = (value: unknown) => (value === undefined ? 'not given' : JSON.stringify(value));
      return `${reused} with ${field} ${shown(before)}; this request has ${field} ${shown(now)}`;
    }
  }
  return undefined;
}

/** The answer remembered under a key, while its retention lasts at `now`. */
function rememberedAnswer(
  state: LifecycleState,
  idempotencyKey: string,
  now: number,
): KeyedAnswer | undefined {
  return state.keyedAnswers.find(
    (entry) => entry.idempotencyKey === idempotencyKey && Date.parse(entry.keptUntil) > now,
  );
}

/** The query's answer: what the lifecycle remembers under the question's key, judged at the caller's time. */
export function keyedAnswer(state: LifecycleState, question: KeyedAnswerQuestion): KeyedAnswerLookup {
  const remembered = rememberedAnswer(state, question.idempotencyKey, question.at);
  if (!remembered) return null;
  const request = requestFingerprint(question.request, state.currency);
  const conflict = keyReuseConflict(remembered, question.operation, request);
  return conflict ? { conflict } : { answer: remembered.answer };
}

type Running = Pick<KeyedAnswer, 'idempotencyKey' | 'operation' | 'request'> & { answer: Promise<unknown> };

/**
 * Payment-grade idempotency under the caller's key. Each attempt is its own Update; the key names the
 * answer. A key answered within its retention gets that answer; a key still running makes the retry wait
 * for the same answer; a key reused with other parameters is refused; a failed attempt is forgotten, so its
 * retry reaches the provider again (under the same key).
 */
export class KeyedRequests {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly state: LifecycleState,
    private readonly retentionMs: number,
  ) {}

  /**
   * For validators: refuses a key reused with other parameters, and answers whether the key is already
   * answered or running (then the state need not allow the request again).
   */
  isKnown(
    operation: LifecycleOperation,
    idempotencyKey: string | undefined,
    request: RequestFingerprint,
  ): boolean {
    if (!idempotencyKey) {
      if (keyRequired.includes(operation)) {
        refuse(
          LifecycleFailure.invalidRequest,
          `Idempotency-Key: required for a ${operation}, so that its retry cannot ${operation} again`,
        );
      }
      return false;
    }
    const now = Date.now();
    const first = rememberedAnswer(this.state, idempotencyKey, now) ?? this.running.get(idempotencyKey);
    if (!first) {
      this.assertRoomFor(idempotencyKey, now);
      return false;
    }
    const conflict = keyReuseConflict(first, operation, request);
    if (conflict) refuse(LifecycleFailure.keyReused, conflict);
    return true;
  }

  /**
   * Refuses a key whose answer is no longer kept (the provider may still replay its request id) and, once
   * the lifecycle keeps as many answers as it may, any new key.
   */
  private assertRoomFor(idempotencyKey: string, now: number): void {
    const forgotten = this.state.keyedAnswers.find((entry) => entry.idempotencyKey === idempotencyKey);
    if (forgotten) {
      refuse(
        LifecycleFailure.stateForbids,
        `Idempotency-Key "${idempotencyKey}": its answer was kept until ${forgotten.keptUntil} and is no longer known; use a new key`,
      );
    }
    const kept = this.state.keyedAnswers.filter((entry) => Date.parse(entry.keptUntil) > now).length;
    if (kept + this.running.size >= KEYED_ANSWERS) {
      refuse(
        LifecycleFailure.stateForbids,
        `Idempotency-Key "${idempotencyKey}": this lifecycle already keeps ${KEYED_ANSWERS} answers, each as long as the provider honours its request id; no new key is taken until one expires`,
      );
    }
  }

  /** Runs `work` once per key: a retry gets the remembered or running answer. Without a key, it runs. */
  async once<T>(
    operation: LifecycleOperation,
    idempotencyKey: string | undefined,
    request: RequestFingerprint,
    work: () => Promise<T>,
  ): Promise<T> {
    if (!idempotencyKey) return work();
    const remembered = rememberedAnswer(this.state, idempotencyKey, Date.now());
    if (remembered) return remembered.answer as T;
    const running = this.running.get(idempotencyKey);
    if (running) return running.answer as Promise<T>;

    const answer = work();
    this.running.set(idempotencyKey, { idempotencyKey, operation, request, answer });
    try {
      const answered = await answer;
      this.remember({ idempotencyKey, operation, request, answer: answered });
      return answered;
    } finally {
      this.running.delete(idempotencyKey);
    }
  }

  private remember(entry: Omit<KeyedAnswer, 'keptUntil'>): void {
    const now = Date.now();
    const kept = this.state.keyedAnswers.filter((answer) => Date.parse(answer.keptUntil) > now);
    const retention = Math.max(this.retentionMs, providerRequestIdRetention);
    kept.push({ ...entry, keptUntil: new Date(now + retention).toISOString() });
    this.state.keyedAnswers = kept;
  }
}
