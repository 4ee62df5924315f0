import type { Client } from '@temporalio/client';
import { lifecycleWorkflowId, type LifecycleState } from '../src/workflows/lifecycle/definitions';
import { runBounded } from './stats';

/** A bound for Promise.race that does not keep the process alive once the race is won. */
export const bound = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** The final state of each lifecycle that closes CAPTURED within `settleMs`, 32 awaited at a time. */
export async function capturedStates(
  client: Client,
  ids: readonly string[],
  settleMs: number,
): Promise<Map<string, LifecycleState>> {
  const states = new Map<string, LifecycleState>();
  await runBounded(ids.length, 32, async (i) => {
    const id = ids[i] as string;
    const result = client.workflow.getHandle(lifecycleWorkflowId(id)).result() as Promise<LifecycleState>;
    const state = await Promise.race([result, bound(settleMs).then(() => undefined)]).catch(() => undefined);
    if (state?.status === 'CAPTURED') states.set(id, state);
  });
  return states;
}
