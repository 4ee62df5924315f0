import type { WorkflowExecutionDescription } from '@temporalio/client';
import { endedHow, endedRunState, runEndedOf } from '../../src/client/ended-runs';
import { authorizedState } from '../fixtures/lifecycle-state';

function described(name: string, closeTime?: Date): WorkflowExecutionDescription {
  return { status: { name }, closeTime } as unknown as WorkflowExecutionDescription;
}

describe('a run ended from outside the lifecycle', () => {
  it('is one terminated or timed out, with when; a running, completed or continued run is not', () => {
    const at = new Date('2026-11-29T07:00:00.000Z');
    expect(runEndedOf(described('TERMINATED', at))).toEqual({ how: 'TERMINATED', at: at.toISOString() });
    expect(runEndedOf(described('TIMED_OUT', at))).toEqual({ how: 'TIMED_OUT', at: at.toISOString() });
    for (const name of ['RUNNING', 'COMPLETED', 'FAILED', 'CONTINUED_AS_NEW', 'CANCELLED']) {
      expect(runEndedOf(described(name, at))).toBeUndefined();
    }
  });

  it('reads without its timer, and a refusal names how it ended', () => {
    const state = endedRunState(
      { ...authorizedState(), nextTimer: { kind: 'reauthorize', at: '2026-12-01T00:00:00.000Z' } },
      { how: 'TIMED_OUT', at: '2026-11-29T07:00:00.000Z' },
    );
    expect(state.nextTimer).toBeUndefined();
    expect(state.reauthorizeAt).toBeUndefined();
    expect(endedHow(state)).toBe(
      'its run was timed out at 2026-11-29T07:00:00.000Z; the authorization is AUTHORIZED',
    );
    expect(endedHow(authorizedState())).toBe('the authorization is AUTHORIZED');
  });
});
