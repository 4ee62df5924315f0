import type { PaymentsCalls } from '../../src/workflows/lifecycle/activity-options';
import { millisecondsOf } from '../../src/workflows/lifecycle/start';
import { markEnded } from '../../src/workflows/lifecycle/state';
import { fireTimer, nextDeadline, reauthorize } from '../../src/workflows/lifecycle/timers';
import { authorizedState, capturedState, usd } from '../fixtures/lifecycle-state';

// The lifecycle's deadlines and what they do, without a workflow: DeadlineTimer itself needs the workflow
// runtime (its durable sleep) and is covered end to end.

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

describe('the next deadline', () => {
  const reauthorizeAt = '2026-11-28T10:00:00.000Z';
  const expiryPolicyAt = '2026-12-23T09:00:00.000Z';

  it('is the reauthorization while it comes before the expiry policy', () => {
    expect(nextDeadline(authorizedState('100.00', { reauthorizeAt, expiryPolicyAt }))).toEqual({
      kind: 'reauthorize',
      at: Date.parse(reauthorizeAt),
    });
  });

  it('is the expiry policy once no reauthorization is due, or when it comes first', () => {
    const reauthorized = authorizedState('100.00', { reauthorizeAt, expiryPolicyAt });
    reauthorized.reauthorizeAt = undefined;
    const expiry = { kind: 'expiryPolicy', at: Date.parse(expiryPolicyAt) };
    expect(nextDeadline(reauthorized)).toEqual(expiry);
    expect(
      nextDeadline(authorizedState('100.00', { reauthorizeAt: '2027-01-01T00:00:00.000Z', expiryPolicyAt })),
    ).toEqual(expiry);
    expect(
      nextDeadline(authorizedState('100.00', { reauthorizeAt: expiryPolicyAt, expiryPolicyAt })),
    ).toEqual(expiry);
  });
});

describe('a lifecycle duration', () => {
  it("is the input's, in milliseconds, or the default", () => {
    expect(millisecondsOf({ authorizationId: 'A1', reauthorizeAfter: '2 days' }, 'reauthorizeAfter')).toBe(
      2 * DAY,
    );
    expect(millisecondsOf({ authorizationId: 'A1', lateEventWindow: 0 }, 'lateEventWindow')).toBe(0);
    expect(millisecondsOf({ authorizationId: 'A1' }, 'reauthorizeAfter')).toBe(3 * DAY);
    expect(millisecondsOf({ authorizationId: 'A1' }, 'expiryPolicyAfter')).toBe(29 * DAY - HOUR);
    expect(millisecondsOf({ authorizationId: 'A1' }, 'idempotencyKeyRetention')).toBe(45 * DAY);
  });

  it('that is not a duration is a TypeError', () => {
    expect(() =>
      millisecondsOf({ authorizationId: 'A1', timerCallTimeout: 'soon' as never }, 'timerCallTimeout'),
    ).toThrow(new TypeError('not a duration: "soon"'));
  });
});

describe('a reauthorization', () => {
  it('asks the provider for the total on the current authorization under its key, and makes the new one current', async () => {
    const state = capturedState('100.00', { C1: '30.00' });
    const reauthorizeAuthorization = jest.fn(async () => ({
      id: 'A2',
      status: 'CREATED' as const,
      amount: usd('70.00'),
      expiration_time: '2026-12-24T10:00:00Z',
    }));
    const calls = { reauthorizeAuthorization } as unknown as PaymentsCalls;

    const authorization = await reauthorize(state, calls, '70.00', 'request', 'k1');
    expect(authorization.id).toBe('A2');
    expect(reauthorizeAuthorization).toHaveBeenCalledWith(
      expect.objectContaining({ authorizationId: 'A1', idempotencyKey: 'A1/reauthorize/k1' }),
    );
    expect(state).toMatchObject({
      currentAuthorizationId: 'A2',
      remainingAmount: '70.00',
      expirationTime: '2026-12-24T10:00:00Z',
      reauthorizeAt: undefined,
      reauthorizations: [
        { fromAuthorizationId: 'A1', toAuthorizationId: 'A2', amount: usd('70.00'), reason: 'request' },
      ],
    });
  });
});

describe('a deadline firing', () => {
  it('does nothing once the lifecycle has ended', async () => {
    const state = authorizedState();
    markEnded(state, 'VOIDED');
    const before = structuredClone(state);
    await fireTimer(state, 'reauthorize', { authorizationId: 'A1', provider: 'paypal' });
    await fireTimer(state, 'expiryPolicy', { authorizationId: 'A1', provider: 'paypal' });
    expect(state).toEqual(before);
  });

  it("marks the lifecycle EXPIRED under the 'expire' policy, releasing what remains", async () => {
    const state = capturedState('100.00', { C1: '30.00' });
    state.expiryPolicy = 'expire';
    await fireTimer(state, 'expiryPolicy', {
      authorizationId: 'A1',
      provider: 'paypal',
      expiryPolicy: 'expire',
    });
    expect(state).toMatchObject({ status: 'EXPIRED', remainingAmount: '0.00', capturedAmount: '30.00' });
  });
});

describe("a timer's run in the ledger", () => {
  it('records the reauthorization it made, and why it ran then', async () => {
    const state = capturedState('100.00', { C1: '30.00' });
    state.deadlineReasons = { reauthorize: 'why now', expiryPolicy: 'why then' };
    const reauthorizeAuthorization = jest.fn(async () => ({
      id: 'A2',
      status: 'CREATED' as const,
      amount: usd('70.00'),
    }));
    await fireTimer(state, 'reauthorize', { authorizationId: 'A1', provider: 'paypal' }, {
      reauthorizeAuthorization,
    } as unknown as PaymentsCalls);
    expect(state.ledger.timerRuns).toEqual([
      {
        timer: 'reauthorize',
        at: expect.any(String),
        why: 'why now',
        outcome: 'reauthorized',
        reference: 'A2',
      },
    ]);
  });

  it('records a failed void as the expiry that followed, with what failed', async () => {
    const state = authorizedState();
    state.deadlineReasons = { expiryPolicy: 'an hour before the hold ends' };
    const voidAuthorization = jest.fn(async () => {
      throw Object.assign(new Error('refused'), { type: 'AUTHORIZATION_ALREADY_CAPTURED' });
    });
    await fireTimer(state, 'expiryPolicy', { authorizationId: 'A1', provider: 'paypal' }, {
      voidAuthorization,
    } as unknown as PaymentsCalls);
    expect(state.status).toBe('EXPIRED');
    expect(state.ledger.timerRuns).toEqual([
      {
        timer: 'expiryPolicy',
        at: expect.any(String),
        why: 'an hour before the hold ends',
        outcome: 'expired',
        failure: 'void: AUTHORIZATION_ALREADY_CAPTURED',
      },
    ]);
  });
});
