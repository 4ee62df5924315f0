import type { AwaitedEvent, LifecycleState, PaymentEvent } from './definitions';

// The provider's events a lifecycle waits for: each capture, refund, void or reauthorization it made itself is
// confirmed by an event naming it. One whose event has not come within the lifecycle's eventGracePeriod makes
// the lifecycle read its provider (the `reconcile` deadline, timers.ts); once read, it is no longer awaited.

/** Awaits the event of a movement the lifecycle made at `madeAt`, unless an event named it already. */
export function awaitEvent(
  state: LifecycleState,
  kind: AwaitedEvent['kind'],
  reference: string,
  madeAt: string,
  graceMs: number,
): void {
  if (eventCame(state, kind, reference)) return;
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

function confirms(event: PaymentEvent, awaited: AwaitedEvent): boolean {
  switch (awaited.kind) {
    case 'capture':
      return event.captureId === awaited.reference && event.refundId === undefined;
    case 'refund':
      return event.refundId === awaited.reference;
    case 'void':
      return event.eventType === 'authorization.voided' && event.authorizationId === awaited.reference;
    case 'reauthorization':
      return event.authorizationId === awaited.reference;
  }
}

/**
 * Whether the provider's event came before the answer (deliveries and answers race): the ledger booked the
 * capture or refund from it, or the recent events name the authorization. (A capture into a shared charge is
 * booked under the lifecycle's own id: its event is awaited, and at worst read once.)
 */
function eventCame(state: LifecycleState, kind: AwaitedEvent['kind'], reference: string): boolean {
  if (kind === 'capture' || kind === 'refund') {
    return state.ledger.movements.some(
      (movement) =>
        movement.kind === kind &&
        movement.source === 'event' &&
        (movement.reference === reference || movement.reference.startsWith(`${reference}/`)),
    );
  }
  return state.recentEvents.some(
    (event) =>
      event.authorizationId === reference &&
      (kind === 'reauthorization' || event.eventType === 'authorization.voided'),
  );
}
