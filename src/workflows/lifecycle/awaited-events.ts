import type { AwaitedEvent, LifecycleState, PaymentEvent } from './definitions';

// The provider's events a lifecycle waits for: a capture or refund it made that the provider answered PENDING
// (PayPal's e-check capture, a refund still processing) is settled only by a later event. One whose event has
// not come within the lifecycle's eventGracePeriod makes the lifecycle read its provider (the `reconcile`
// deadline, timers.ts); once read, it is no longer awaited. An answer that settles the movement (a COMPLETED
// capture or refund, a void, a new hold) needs no event: what else the provider holds is read before close.

/**
 * Awaits the event that settles a movement the lifecycle made at `madeAt`, when the provider answered it
 * `PENDING` and no event settled it already.
 */
export function awaitEvent(
  state: LifecycleState,
  kind: AwaitedEvent['kind'],
  answer: { id: string; status?: string },
  madeAt: string,
  graceMs: number,
): void {
  const reference = answer.id;
  if (answer.status !== 'PENDING' || eventCame(state, kind, reference)) return;
  const awaited = (state.awaitedEvents ?? []).filter(
    (each) => each.kind !== kind || each.reference !== reference,
  );
  const readAfter = new Date(Date.parse(madeAt) + graceMs).toISOString();
  state.awaitedEvents = [...awaited, { kind, reference, madeAt, readAfter }];
}

/** A delivered event confirms the movements it names. */
export function eventArrived(state: LifecycleState, event: PaymentEvent): void {
  if (!state.awaitedEvents) return;
  const left = state.awaitedEvents.filter((awaited) => !confirms(event, awaited));
  state.awaitedEvents = left.length > 0 ? left : undefined;
}

/** A read of the provider has booked what it holds: nothing made before it is awaited any longer. */
export function eventsRead(state: LifecycleState): void {
  state.awaitedEvents = undefined;
}

/** A read that could not be made: each overdue movement is read again after another grace period. */
export function postponeOverdue(state: LifecycleState, now: number, graceMs: number): void {
  if (!state.awaitedEvents) return;
  const later = new Date(now + graceMs).toISOString();
  state.awaitedEvents = state.awaitedEvents.map((awaited) =>
    Date.parse(awaited.readAfter) <= now ? { ...awaited, readAfter: later } : awaited,
  );
}

/** When the lifecycle reads its provider for the first awaited event that has not come, if any. */
export function overdueAt(state: LifecycleState): number | undefined {
  if (!state.awaitedEvents) return undefined;
  return Math.min(...state.awaitedEvents.map((awaited) => Date.parse(awaited.readAfter)));
}

/** An event that settles the awaited movement: the capture's or refund's own, no longer pending. */
function confirms(event: PaymentEvent, awaited: AwaitedEvent): boolean {
  if (event.status === 'PENDING' || event.eventType === 'capture.pending') return false;
  return awaited.kind === 'capture'
    ? event.captureId === awaited.reference && event.refundId === undefined
    : event.refundId === awaited.reference;
}

/**
 * Whether an event settled the movement before the answer came (deliveries and answers race): the ledger booked
 * the capture or refund from it, no longer pending. (A capture into a shared charge is booked under the
 * lifecycle's own id: its event is awaited, and at worst read once.)
 */
function eventCame(state: LifecycleState, kind: AwaitedEvent['kind'], reference: string): boolean {
  return state.ledger.movements.some(
    (movement) =>
      movement.kind === kind &&
      movement.source === 'event' &&
      !movement.pending &&
      (movement.reference === reference || movement.reference.startsWith(`${reference}/`)),
  );
}
