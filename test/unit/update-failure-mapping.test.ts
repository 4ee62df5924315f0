import {
  ServiceError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { HandlerError } from 'nexus-rpc';
import { toApiError } from '../../src/api/errors';
import { LifecycleStartPendingError } from '../../src/client/lifecycle-client';
import {
  betweenTasks,
  LifecycleRunEndedError,
  LifecycleTaskFailedError,
} from '../../src/client/update-failures';
import { toNexusError } from '../../src/nexus/errors';
import { LifecycleFailure } from '../../src/workflows/lifecycle/definitions';

// How an Update's failure reaches the caller: the client names the failures between two workflow tasks, the
// API answers each with its own code (a 503 with Retry-After only when a retry can help), Nexus likewise.

const grpcStatus = { DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, UNAVAILABLE: 14 };

/** A gRPC error as the client's transport throws it. */
function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code}: ${details}`), { code, details, metadata: {} });
}

const taskFailure = () =>
  new ServiceError('Workflow Update failed', {
    cause: grpcError(
      grpcStatus.FAILED_PRECONDITION,
      'Unable to perform workflow execution update due to unexpected workflow task failure.',
    ),
  });

const runEnded = () =>
  new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({
      type: 'AcceptedUpdateCompletedWorkflow',
      message: 'Workflow Update failed because the Workflow completed before the Update completed.',
      nonRetryable: true,
    }),
  );

describe('the client names an Update that met the lifecycle between two tasks', () => {
  it('a workflow task failure', () => {
    expect(betweenTasks(taskFailure())).toBeInstanceOf(LifecycleTaskFailedError);
  });

  it('a run that ended by continue-as-new while it held the Update', () => {
    expect(betweenTasks(runEnded())).toBeInstanceOf(LifecycleRunEndedError);
  });

  it('a run still closing when the Update came (not an unreachable server)', () => {
    const closing = new ServiceError('Workflow Update failed', {
      cause: grpcError(
        grpcStatus.RESOURCE_EXHAUSTED,
        'workflow operation can not be applied because workflow is closing',
      ),
    });
    expect(betweenTasks(closing)).toBeInstanceOf(LifecycleRunEndedError);
  });

  it('nothing else', () => {
    const otherPrecondition = new ServiceError('Workflow Update failed', {
      cause: grpcError(grpcStatus.FAILED_PRECONDITION, 'update rejected: too many in flight'),
    });
    const rejected = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ type: LifecycleFailure.stateForbids, nonRetryable: true }),
    );
    expect(betweenTasks(otherPrecondition)).toBeUndefined();
    expect(betweenTasks(rejected)).toBeUndefined();
    expect(betweenTasks(new Error('boom'))).toBeUndefined();
  });
});

describe('the API answers each Update failure with its own code', () => {
  const answer = (error: unknown) => {
    const apiError = toApiError(error);
    return { status: apiError.status, code: apiError.code, retryAfter: apiError.retryAfterSeconds };
  };

  it.each([
    ['UNAVAILABLE', grpcStatus.UNAVAILABLE],
    ['DEADLINE_EXCEEDED', grpcStatus.DEADLINE_EXCEEDED],
    ['RESOURCE_EXHAUSTED', grpcStatus.RESOURCE_EXHAUSTED],
  ])('an unreachable or busy server (%s): 503 TEMPORAL_UNAVAILABLE with Retry-After', (_name, code) => {
    const error = new ServiceError('Workflow Update failed', { cause: grpcError(code, 'no') });
    expect(answer(error)).toEqual({ status: 503, code: 'TEMPORAL_UNAVAILABLE', retryAfter: 1 });
  });

  it('an Update call that timed out: 503 TEMPORAL_UNAVAILABLE', () => {
    const error = new WorkflowUpdateRPCTimeoutOrCancelledError('timeout', {
      cause: grpcError(grpcStatus.DEADLINE_EXCEEDED, 'deadline'),
    });
    expect(answer(error)).toEqual({ status: 503, code: 'TEMPORAL_UNAVAILABLE', retryAfter: 1 });
  });

  it('a reachable server that fails the call otherwise: 500, never TEMPORAL_UNAVAILABLE', () => {
    const error = new ServiceError('Workflow Update failed', {
      cause: grpcError(grpcStatus.FAILED_PRECONDITION, 'something else'),
    });
    expect(answer(error)).toEqual({ status: 500, code: 'INTERNAL', retryAfter: undefined });
  });

  it('a workflow task failure that outlasted the retries: 500 LIFECYCLE_TASK_FAILED', () => {
    expect(answer(betweenTasks(taskFailure()))).toEqual({
      status: 500,
      code: 'LIFECYCLE_TASK_FAILED',
      retryAfter: undefined,
    });
  });

  it('a run that ended under the Update: 503 LIFECYCLE_RUN_ENDED with Retry-After', () => {
    expect(answer(betweenTasks(runEnded()))).toEqual({
      status: 503,
      code: 'LIFECYCLE_RUN_ENDED',
      retryAfter: 1,
    });
  });

  it("the validator's rejection keeps its business code", () => {
    const rejected = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({
        type: LifecycleFailure.stateForbids,
        message: 'more than remains',
        nonRetryable: true,
      }),
    );
    expect(answer(rejected)).toEqual({ status: 409, code: 'LIFECYCLE_STATE_FORBIDS', retryAfter: undefined });
  });

  it('a start no worker has read yet: 504 ANSWER_PENDING with Retry-After', () => {
    expect(answer(new LifecycleStartPendingError('not read yet'))).toEqual({
      status: 504,
      code: 'ANSWER_PENDING',
      retryAfter: 1,
    });
  });
});

describe('Nexus tells the same failures as handler errors', () => {
  it.each([
    ['a run that ended under the Update', () => betweenTasks(runEnded())],
    ['a start no worker has read yet', () => new LifecycleStartPendingError('not read yet')],
    [
      'an unreachable server',
      () => new ServiceError('Workflow Update failed', { cause: grpcError(grpcStatus.UNAVAILABLE, 'no') }),
    ],
  ])('%s: retryable UNAVAILABLE', (_what, failure) => {
    const error = toNexusError(failure());
    expect(error).toBeInstanceOf(HandlerError);
    expect(error).toMatchObject({ type: 'UNAVAILABLE', retryable: true });
  });
});
