import { ApplicationFailure } from '@temporalio/common';
import { providerRequestIdRetention } from '../../src/duration-bounds';
import { paypalCapabilities } from '../../src/providers/paypal/provider';
import { LifecycleFailure, type PendingCapture } from '../../src/workflows/lifecycle/definitions';
import {
  beginAttempt,
  capturePlan,
  keyMayBeForgotten,
  KeyedRequests,
  keyedAnswer,
  requestFingerprint,
  resentAttempt,
} from '../../src/workflows/lifecycle/keyed-requests';
import { authorizedState } from '../fixtures/lifecycle-state';

// Answers kept under the caller's Idempotency-Key, without a workflow: the rules the lifecycle's Updates and
// its keyedAnswer query follow.

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

function refusal(run: () => unknown): ApplicationFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof ApplicationFailure) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

afterEach(() => jest.restoreAllMocks());

describe('a request fingerprint', () => {
  it('leaves out the key and fields not given, and writes amounts with the currency decimals', () => {
    expect(
      requestFingerprint(
        { amount: '10', finalCapture: false, invoiceId: undefined, idempotencyKey: 'k' },
        'USD',
      ),
    ).toEqual({ amount: '10.00', finalCapture: false });
    expect(requestFingerprint({ amount: '1000' }, 'JPY')).toEqual({ amount: '1000' });
    expect(requestFingerprint({ idempotencyKey: 'k' }, 'USD')).toEqual({});
  });

  it('keeps an amount that is not one of the currency as it was given', () => {
    expect(requestFingerprint({ amount: '1.5' }, 'JPY')).toEqual({ amount: '1.5' });
  });
});

describe('KeyedRequests', () => {
  it('runs a request without a key every time', async () => {
    const keyed = new KeyedRequests(authorizedState(), HOUR);
    const work = jest.fn(async () => 'captured');
    await keyed.once('capture', undefined, {}, work);
    await keyed.once('capture', undefined, {}, work);
    expect(work).toHaveBeenCalledTimes(2);
    expect(keyed.isKnown('void', undefined, {})).toBe(false);
  });

  it.each(['capture', 'refund', 'reauthorize'] as const)(
    'refuses a %s without a key, naming the header',
    (operation) => {
      const keyed = new KeyedRequests(authorizedState(), HOUR);
      const refused = refusal(() => keyed.isKnown(operation, undefined, {}));
      expect(refused.type).toBe(LifecycleFailure.invalidRequest);
      expect(refused.message).toBe(
        `Idempotency-Key: required for a ${operation}, so that its retry cannot ${operation} again`,
      );
      expect(refusal(() => keyed.isKnown(operation, '', {})).type).toBe(LifecycleFailure.invalidRequest);
    },
  );

  it('answers a retry under the key with the first answer, and remembers it in the state', async () => {
    const state = authorizedState();
    const keyed = new KeyedRequests(state, HOUR);
    const work = jest.fn(async () => ({ id: 'C1' }));
    const first = await keyed.once('capture', 'k1', { amount: '10.00' }, work);
    const retry = await keyed.once('capture', 'k1', { amount: '10.00' }, work);
    expect(retry).toBe(first);
    expect(work).toHaveBeenCalledTimes(1);
    expect(state.keyedAnswers).toEqual([
      {
        idempotencyKey: 'k1',
        operation: 'capture',
        request: { amount: '10.00' },
        answer: { id: 'C1' },
        keptUntil: expect.any(String),
      },
    ]);
    expect(keyed.isKnown('capture', 'k1', { amount: '10.00' })).toBe(true);
  });

  it('makes a retry while the first request runs wait for its answer', async () => {
    const keyed = new KeyedRequests(authorizedState(), HOUR);
    let finish: (answer: string) => void = () => undefined;
    const work = jest.fn(() => new Promise<string>((resolve) => (finish = resolve)));
    const first = keyed.once('capture', 'k1', {}, work);
    const retry = keyed.once('capture', 'k1', {}, work);
    expect(keyed.isKnown('capture', 'k1', {})).toBe(true);
    finish('captured');
    expect(await Promise.all([first, retry])).toEqual(['captured', 'captured']);
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('forgets a failed attempt, so its retry runs again', async () => {
    const state = authorizedState();
    const keyed = new KeyedRequests(state, HOUR);
    await expect(keyed.once('capture', 'k1', {}, () => Promise.reject(new Error('503')))).rejects.toThrow(
      '503',
    );
    expect(state.keyedAnswers).toEqual([]);
    expect(keyed.isKnown('capture', 'k1', {})).toBe(false);
    await expect(keyed.once('capture', 'k1', {}, async () => 'captured')).resolves.toBe('captured');
  });

  it('refuses a key reused with other parameters or for another operation, naming what differs', async () => {
    const keyed = new KeyedRequests(authorizedState(), HOUR);
    await keyed.once('capture', 'k1', { amount: '10.00' }, async () => 'captured');

    const otherAmount = refusal(() => keyed.isKnown('capture', 'k1', { amount: '25.00' }));
    expect(otherAmount.type).toBe(LifecycleFailure.keyReused);
    expect(otherAmount.nonRetryable).toBe(true);
    expect(otherAmount.message).toBe(
      'Idempotency-Key "k1" was first used with amount "10.00"; this request has amount "25.00"',
    );
    expect(
      refusal(() => keyed.isKnown('capture', 'k1', { amount: '10.00', invoiceId: 'INV-1' })).message,
    ).toBe(
      'Idempotency-Key "k1" was first used with invoiceId not given; this request has invoiceId "INV-1"',
    );
    expect(refusal(() => keyed.isKnown('void', 'k1', {})).message).toBe(
      'Idempotency-Key "k1" was first used for a capture, not a void',
    );
  });

  it('keeps an answer as long as the provider honours its request id, whatever the shorter retention', async () => {
    const state = authorizedState();
    const keyed = new KeyedRequests(state, HOUR);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now);
    await keyed.once('capture', 'k1', { amount: '10.00' }, async () => 'first');
    expect(state.keyedAnswers[0]?.keptUntil).toBe(new Date(now + 45 * DAY).toISOString());
    jest.spyOn(Date, 'now').mockReturnValue(now + HOUR + 1);
    expect(refusal(() => keyed.isKnown('capture', 'k1', { amount: '25.00' })).type).toBe(
      LifecycleFailure.keyReused,
    );
    await expect(keyed.once('capture', 'k1', { amount: '10.00' }, async () => 'second')).resolves.toBe(
      'first',
    );
  });

  it('keeps answers at least as long as PayPal declares it honours a request id', () => {
    expect(providerRequestIdRetention).toBeGreaterThanOrEqual(paypalCapabilities.idempotencyKeyRetentionMs);
  });

  it('keeps an answer for a longer retention than the provider asks', async () => {
    const state = authorizedState();
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now);
    await new KeyedRequests(state, 60 * DAY).once('capture', 'k1', {}, async () => 'first');
    expect(state.keyedAnswers[0]?.keptUntil).toBe(new Date(now + 60 * DAY).toISOString());
  });

  it('refuses a key whose answer it no longer keeps, naming the key', async () => {
    const keyed = new KeyedRequests(authorizedState(), HOUR);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now);
    await keyed.once('capture', 'k1', { amount: '10.00' }, async () => 'first');
    jest.spyOn(Date, 'now').mockReturnValue(now + providerRequestIdRetention + 1);
    const refused = refusal(() => keyed.isKnown('capture', 'k1', { amount: '10.00' }));
    expect(refused.type).toBe(LifecycleFailure.stateForbids);
    expect(refused.message).toMatch(/^Idempotency-Key "k1": its answer was kept until .* use a new key$/);
    expect(keyed.isKnown('capture', 'k2', { amount: '10.00' })).toBe(false);
  });

  it('keeps 500 answers and refuses a new key rather than forgetting one', async () => {
    const state = authorizedState();
    const keyed = new KeyedRequests(state, HOUR);
    for (let n = 0; n < 500; n += 1) await keyed.once('capture', `k${n}`, {}, async () => n);
    const refused = refusal(() => keyed.isKnown('capture', 'k500', {}));
    expect(refused.type).toBe(LifecycleFailure.stateForbids);
    expect(refused.message).toMatch(/^Idempotency-Key "k500": this lifecycle already keeps 500 answers/);
    expect(keyed.isKnown('capture', 'k0', {})).toBe(true);
    expect(state.keyedAnswers).toHaveLength(500);
  });
});

describe('the keyedAnswer query', () => {
  const at = Date.parse('2026-11-25T12:00:00.000Z');
  const state = authorizedState();
  state.keyedAnswers = [
    {
      idempotencyKey: 'k1',
      operation: 'capture',
      request: { amount: '10.00' },
      answer: { id: 'C1' },
      keptUntil: new Date(at + HOUR).toISOString(),
    },
  ];

  it('answers what is remembered under the key for the same request, amounts compared with the decimals', () => {
    const question = { operation: 'capture' as const, idempotencyKey: 'k1', request: { amount: '10' }, at };
    expect(keyedAnswer(state, question)).toEqual({ answer: { id: 'C1' } });
  });

  it('answers a conflict for another request under the key, null for an unknown key', () => {
    expect(
      keyedAnswer(state, { operation: 'capture', idempotencyKey: 'k1', request: { amount: '5.00' }, at }),
    ).toEqual({
      conflict: 'Idempotency-Key "k1" was first used with amount "10.00"; this request has amount "5.00"',
    });
    expect(keyedAnswer(state, { operation: 'capture', idempotencyKey: 'k2', request: {}, at })).toBeNull();
  });

  it("judges the retention at the caller's time", () => {
    const question = { operation: 'capture' as const, idempotencyKey: 'k1', request: { amount: '10.00' } };
    expect(keyedAnswer(state, { ...question, at: at + HOUR - 1 })).toEqual({ answer: { id: 'C1' } });
    expect(keyedAnswer(state, { ...question, at: at + HOUR })).toBeNull();
  });
});

describe('a pending attempt and its provider key’s retention', () => {
  const attempt: PendingCapture = {
    operation: 'capture',
    idempotencyKey: 'k',
    request: { amount: '10.00' },
    sentAt: '2026-01-01T00:00:00.000Z',
    sent: {
      authorizationId: 'A1',
      amount: { currency_code: 'USD', value: '10.00' },
      finalCapture: false,
      idempotencyKey: 'A1/capture/k',
    },
  };

  it('is stamped when planned (and sent in the same task), and keeps that time when sent again under its key', () => {
    const state = authorizedState();
    jest.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
    try {
      const request = { idempotencyKey: 'k', amount: '10.00' };
      const planned = capturePlan(state, request, requestFingerprint(request, 'USD'));
      expect(planned.sentAt).toBe('2026-01-01T00:00:00.000Z');
      beginAttempt(state, planned);
      jest.setSystemTime(Date.parse('2026-01-01T01:00:00Z'));
      const again = capturePlan(state, request, requestFingerprint(request, 'USD'));
      expect(again.sentAt).toBe('2026-01-01T00:00:00.000Z');
      beginAttempt(state, again);
      expect(state.pendingAttempts).toEqual([planned]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('counts its key forgotten from the retention less a margin (5 minutes, at most half of it)', () => {
    const state = { ...authorizedState(), keyRetentionMs: DAY };
    const sentAt = Date.parse('2026-01-01T00:00:00Z');
    const pending = { ...attempt, sentAt: new Date(sentAt).toISOString() };
    expect(keyMayBeForgotten(state, pending, sentAt + DAY - 5 * 60 * 1000 - 1)).toBe(false);
    expect(keyMayBeForgotten(state, pending, sentAt + DAY - 5 * 60 * 1000)).toBe(true);
    expect(keyMayBeForgotten({ ...state, keyRetentionMs: 10_000 }, pending, sentAt + 4_999)).toBe(false);
    expect(keyMayBeForgotten({ ...state, keyRetentionMs: 10_000 }, pending, sentAt + 5_000)).toBe(true);
  });

  it('is sent again under a fresh key each time, derived from its first one, and stamped anew', () => {
    jest.useFakeTimers({ now: Date.parse('2026-01-02T00:00:00Z') });
    try {
      const once = resentAttempt(attempt);
      expect(once).toMatchObject({ resends: 1, sent: { idempotencyKey: 'A1/capture/k/resend-1' } });
      expect(once.sentAt).toBe('2026-01-02T00:00:00.000Z');
      jest.setSystemTime(Date.parse('2026-01-03T00:00:00Z'));
      const twice = resentAttempt(once);
      expect(twice).toMatchObject({
        resends: 2,
        sentAt: '2026-01-03T00:00:00.000Z',
        sent: { idempotencyKey: 'A1/capture/k/resend-2' },
      });
    } finally {
      jest.useRealTimers();
    }
  });
});
