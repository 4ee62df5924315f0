import { randomUUID } from 'node:crypto';
import { openApiLimits } from '../helpers/api-limits';
import { startTestApi, useLifecycleStack } from '../helpers/lifecycle-stack';

// A command whose answer takes longer than API_ANSWER_WAIT_MS: the caller gets a retryable 504 in time, the
// command goes on in its lifecycle, and the retry with the same Idempotency-Key gets its one answer.

const stack = useLifecycleStack();

it('answers 504 with Retry-After while a stalled capture goes on; the retry gets the one capture', async () => {
  const { app, http } = await startTestApi({
    lifecycles: stack.lifecycles,
    limits: { ...openApiLimits, answerWaitMs: 500 },
  });
  try {
    const authorizationId = await stack.startLifecycle();
    await stack.provider.post('/sandbox/faults', { operation: 'capture', mode: 'stall', stallMs: 3_000 });
    const key = randomUUID();
    const capture = () =>
      http.post(
        `/v1/lifecycles/${authorizationId}/capture`,
        { amount: '20.00' },
        { headers: { 'idempotency-key': key } },
      );

    const pending = await capture();
    expect(pending.status).toBe(504);
    expect(pending.headers['retry-after']).toBe('1');
    expect(pending.data.error.code).toBe('ANSWER_PENDING');

    // The lifecycle's answer, once the provider's stall is over.
    const answered = await stack.lifecycles.capture(authorizationId, {
      amount: '20.00',
      idempotencyKey: key,
    });
    const retried = await capture();
    expect(retried.status).toBe(200);
    expect(retried.data.id).toBe(answered.id);
    expect(await stack.capturesAtProvider(authorizationId)).toEqual([
      expect.objectContaining({ id: answered.id }),
    ]);
  } finally {
    await app.close();
  }
});
