import { postJson } from '../../bench/provider-sandboxes';
import { freshKey } from './lifecycle-stack';
import type { ProviderStack } from './provider-stack';

/**
 * A PayPal lifecycle of `value` USD, started with `eventGracePeriod: '2 seconds'`, whose partial capture of
 * `captured` the sandbox answers PENDING (an e-check the bank has not settled): answers both ids.
 */
export async function pendingCapture(
  stack: ProviderStack,
  value: string,
  captured: string,
): Promise<{ authorizationId: string; captureId: string }> {
  const { id: authorizationId } = await postJson<{ id: string }>(
    `${stack.sandbox.url}/sandbox/authorizations`,
    {
      amount: { currency_code: 'USD', value },
      capture_status: 'PENDING',
    },
  );
  const started = await stack.api.post('/v1/lifecycles', { authorizationId, eventGracePeriod: '2 seconds' });
  if (started.status !== 201) throw new Error(`lifecycle not started: ${JSON.stringify(started.data)}`);
  const capture = await stack.api.post(
    `/v1/lifecycles/${authorizationId}/capture`,
    { amount: captured, finalCapture: false },
    freshKey(),
  );
  if (capture.data?.status !== 'PENDING')
    throw new Error(`capture not pending: ${JSON.stringify(capture.data)}`);
  return { authorizationId, captureId: capture.data.id as string };
}

/** The bank settles the capture at the sandbox (its event is delivered where the sandbox delivers). */
export async function settleAtBank(stack: ProviderStack, captureId: string): Promise<void> {
  await postJson(`${stack.sandbox.url}/sandbox/captures/${captureId}/complete`, {});
}
