import { randomUUID } from 'node:crypto';
import {
  capture,
  closedRun,
  command,
  lifecycleReaches,
  settledLifecycle,
  startLifecycle,
} from '../lifecycles';
import type { Scenario } from '../scenario';

export const lostAnswerClaimed: Scenario = {
  name: 'authorization-lifecycle-lost-answer-claimed',
  shows: 'a capture whose answer was lost, learnt from its event, claimed by its key’s retry; another key refused',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00', { lateEventWindow: '15 seconds' });
    await capture(stack, authorizationId, 'lost-answer-1', { amount: '30.00' });
    await settledLifecycle(stack, authorizationId);
    // The provider captures on the first attempt and drops that answer and every replay of it.
    await stack.control.post('/sandbox/faults', { operation: 'capture', mode: 'commit-then-drop', count: 5 });
    await command(stack, authorizationId, 'capture', 'lost-answer-2', {}, 503);
    await stack.control.delete('/sandbox/faults');
    const learnt = await lifecycleReaches(
      stack,
      authorizationId,
      (state) => state.status === 'CAPTURED',
      'the lost capture to be learnt from its event',
    );
    await command(stack, authorizationId, 'capture', `other-${randomUUID()}`, {}, 409);
    const claimed = await capture(stack, authorizationId, 'lost-answer-2');
    if (!learnt.captures.some((made) => made.id === claimed.id)) {
      throw new Error(`the retry answered ${claimed.id}, not the capture learnt from the event`);
    }
    await settledLifecycle(stack, authorizationId);
    return closedRun(stack, authorizationId);
  },
};
