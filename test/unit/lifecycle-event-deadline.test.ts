import {
  awaitEvent,
  eventArrived,
  eventsRead,
  overdueAt,
  postponeOverdue,
} from '../../src/workflows/lifecycle/awaited-events';
import { nextDeadline, windowDeadline } from '../../src/workflows/lifecycle/timers';
import { authorizedState, captureCompletedEvent } from '../fixtures/lifecycle-state';

// The `reconcile` deadline: a movement the lifecycle made waits for its provider event for the grace period;
// then the lifecycle reads its provider, once per movement.

const HOUR = 60 * 60 * 1000;
const reauthorizeAt = '2026-11-28T10:00:00.000Z';
const expiryPolicyAt = '2026-12-23T09:00:00.000Z';
const madeAt = '2026-11-25T10:00:00.000Z';
const readAt = Date.parse(madeAt) + HOUR;

/** A capture's or refund's answer that leaves its outcome to a later event. */
const pending = (id: string) => ({ id, status: 'PENDING' });

function openLifecycle() {
  return authorizedState('100.00', { reauthorizeAt, expiryPolicyAt });
}

describe('the reconcile deadline', () => {
  it('comes a grace period after a capture whose event has not come, before the reauthorization', () => {
    const state = openLifecycle();
    awaitEvent(state, 'capture', pending('C1'), madeAt, HOUR);
    expect(nextDeadline(state)).toEqual({ kind: 'reconcile', at: readAt });
  });

  it('goes once the event naming the capture arrives: the lifecycle keeps its one deadline', () => {
    const state = openLifecycle();
    awaitEvent(state, 'capture', pending('C1'), madeAt, HOUR);
    eventArrived(state, captureCompletedEvent('30.00', { captureId: 'C1' }));
    expect(state.awaitedEvents).toBeUndefined();
    expect(nextDeadline(state)).toEqual({ kind: 'reauthorize', at: Date.parse(reauthorizeAt) });
  });

  it('is no deadline of a lifecycle that awaits nothing', () => {
    const state = openLifecycle();
    expect(overdueAt(state)).toBeUndefined();
    expect(nextDeadline(state).kind).toBe('reauthorize');
  });

  it('is the earliest of several movements, and stays until the event of each has come', () => {
    const state = openLifecycle();
    awaitEvent(state, 'capture', pending('C1'), madeAt, HOUR);
    awaitEvent(state, 'refund', pending('R1'), '2026-11-25T10:30:00.000Z', HOUR);
    eventArrived(state, captureCompletedEvent('30.00', { captureId: 'C1' }));
    expect(nextDeadline(state)).toEqual({ kind: 'reconcile', at: readAt + HOUR / 2 });
    // A capture event of the refunded capture is no refund event.
    eventArrived(state, captureCompletedEvent('30.00', { captureId: 'C1' }));
    expect(state.awaitedEvents).toHaveLength(1);
    eventArrived(state, {
      id: 'WH-R1',
      eventType: 'capture.refunded',
      captureId: 'C1',
      refundId: 'R1',
      movement: 'refund',
      amount: { currency_code: 'USD', value: '5.00' },
    });
    expect(state.awaitedEvents).toBeUndefined();
  });

  it('is not set for a capture or refund the provider answered settled', () => {
    const state = openLifecycle();
    awaitEvent(state, 'capture', { id: 'C1', status: 'COMPLETED' }, madeAt, HOUR);
    awaitEvent(state, 'refund', { id: 'R1', status: 'COMPLETED' }, madeAt, HOUR);
    expect(state.awaitedEvents).toBeUndefined();
  });

  it('stays while the events naming the capture say it is still pending', () => {
    const state = openLifecycle();
    awaitEvent(state, 'capture', pending('C1'), madeAt, HOUR);
    eventArrived(state, { id: 'WH-P', eventType: 'capture.pending', captureId: 'C1', status: 'PENDING' });
    expect(state.awaitedEvents).toHaveLength(1);
  });

  it('is not set for a movement whose event came before its answer', () => {
    const state = openLifecycle();
    state.ledger.movements.push({
      kind: 'capture',
      reference: 'C1',
      of: 'A1',
      minorUnits: '3000',
      source: 'event',
      at: madeAt,
    });
    awaitEvent(state, 'capture', pending('C1'), madeAt, HOUR);
    expect(state.awaitedEvents).toBeUndefined();
  });

  it('comes before the close in the late-event window, and not after it', () => {
    const state = openLifecycle();
    awaitEvent(state, 'refund', pending('R1'), madeAt, HOUR);
    const closeAt = Date.parse(madeAt) + 3 * 24 * HOUR;
    expect(windowDeadline(state, closeAt)).toEqual({ kind: 'reconcile', at: readAt });
    expect(windowDeadline(state, readAt - 1)).toEqual({ kind: 'close', at: readAt - 1 });
  });

  it('is gone once the provider was read: the same movement is not read again', () => {
    const state = openLifecycle();
    awaitEvent(state, 'capture', pending('C1'), madeAt, HOUR);
    eventsRead(state);
    expect(nextDeadline(state).kind).toBe('reauthorize');
    // A new movement is awaited again.
    awaitEvent(state, 'capture', pending('C2'), madeAt, HOUR);
    expect(nextDeadline(state).kind).toBe('reconcile');
  });

  it('moves a grace period later when the read could not be made', () => {
    const state = openLifecycle();
    awaitEvent(state, 'capture', pending('C1'), madeAt, HOUR);
    awaitEvent(state, 'capture', pending('C2'), '2026-11-25T12:00:00.000Z', HOUR);
    postponeOverdue(state, readAt, HOUR);
    expect(state.awaitedEvents?.map((each) => each.readAfter)).toEqual([
      new Date(readAt + HOUR).toISOString(),
      '2026-11-25T13:00:00.000Z',
    ]);
  });
});
