import type { HoldingsRequest, ProviderHoldings } from '../../providers/holdings';
import type { Discrepancy, Movement } from '../../providers/movements';
import type { Authorization } from '../../providers/resources';
import type { LifecycleState, ReconcileReason, ReconcileSummary } from './definitions';
import { figuresOf, type CaptureFigures } from './ledger/figures';
import { isOpen, recordDiscrepancy } from './ledger/invariants';
import { minorUnitsOf } from './money';
import { bookedIntoCharge, providerCaptureId } from './shared-charge';
import { isTerminal } from './bookings';
import { applyFinding, markEnded, releaseUncapturable } from './state';

// Reconciliation: the lifecycle books what a read of its provider finds (source 'read'), each movement once
// per provider reference, and records as a discrepancy what its ledger holds that the provider does not; one
// such discrepancy a later read no longer finds is resolved. Pure: the read is an activity (readHoldings),
// this books its answer.

/** How the discrepancies a read records begin: a later read resolves those it does not find again. */
const readInvariants = [
  'the provider holds what the ledger books',
  'the ledger books every dispute',
  'the ledger books every refund',
  'the ledger books every capture',
];

/** The provider references the lifecycle knows: its authorization chain, its captures, its refunds. */
export function holdingsRequestOf(state: LifecycleState): HoldingsRequest {
  const authorizationIds = unique([
    state.authorizationId,
    ...state.reauthorizations.map((record) => record.toAuthorizationId),
  ]);
  // A capture counted at start has no id of the provider's (`<authorization>/captured-before-start`).
  const captureIds = unique(
    state.captures.map((capture) => providerCaptureId(state, capture.id)).filter((id) => !id.includes('/')),
  );
  const refunds = new Map<string, string>();
  for (const refund of state.refunds ?? []) {
    if (refund.kind !== 'refund') continue;
    // A refund spread over a shared charge's captures is recorded as `<refund>/<capture>`.
    const id = refund.id.split('/')[0] ?? refund.id;
    refunds.set(id, providerCaptureId(state, refund.captureId));
  }
  return {
    authorizationIds,
    captureIds,
    refunds: [...refunds].map(([id, captureId]) => ({ id, captureId })),
  };
}

/** Books what the provider holds and records what it does not; answers what this reconciliation did. */
export function bookHoldings(
  state: LifecycleState,
  holdings: ProviderHoldings,
  reason: ReconcileReason,
  at: string,
): ReconcileSummary {
  const bookedBefore = state.ledger.movements.length;
  const recorded: Discrepancy[] = [];
  const found = new Set<string>();
  const record = (movement: Movement, why: string) => {
    const discrepancy = { movement: { ...movement, source: 'read' as const, at }, invariant: why, at };
    found.add(discrepancyKey(discrepancy));
    if (recordDiscrepancy(state.ledger, discrepancy)) recorded.push(discrepancy);
  };
  // Captures before refunds: a refund is booked against a capture the ledger holds.
  const findings = [...holdings.findings].sort((a, b) => Number(!!a.refundId) - Number(!!b.refundId));
  for (const finding of findings) applyFinding(state, finding);
  for (const authorization of holdings.authorizations) bookHold(state, authorization, at);
  // What the ledger books once the read is booked: the checks below record discrepancies, they book nothing.
  const figures = figuresOf(state.ledger.movements);
  const { captures } = figures;

  const provider = state.provider;
  for (const reference of holdings.absent) {
    const booked = state.ledger.movements.filter(
      (movement) =>
        (movement.kind === 'hold' || movement.kind === 'capture' || movement.kind === 'refund') &&
        (movement.reference === reference ||
          movement.reference.startsWith(`${reference}/`) ||
          state.captures.some(
            (capture) =>
              capture.id === movement.reference && providerCaptureId(state, capture.id) === reference,
          )),
    );
    for (const movement of booked) {
      record(
        movement,
        `the provider holds what the ledger books: ${provider} does not hold ${movement.kind} ${reference}`,
      );
    }
  }
  for (const finding of holdings.findings) {
    if (finding.refundId || !finding.captureId || !finding.amount) continue;
    if (finding.eventType !== 'capture.completed' && finding.eventType !== 'capture.pending') continue;
    const held = minorUnitsOf(state, finding.amount.value);
    if (held === undefined) continue;
    const booked = state.sharedCaptureIds
      ? bookedIntoCharge(state, finding.captureId)
      : ofCapture(captures, finding.captureId).captured;
    if (booked > held) {
      record(
        { kind: 'capture', reference: finding.captureId, minorUnits: String(held), source: 'read', at },
        `the provider holds what the ledger books: ${provider} holds ${held} captured by ${finding.captureId}, the ledger ${booked}`,
      );
    }
  }
  for (const captureId of holdings.disputed) {
    const captures = state.captures.filter((capture) => providerCaptureId(state, capture.id) === captureId);
    const disputeBooked = state.ledger.movements.some(
      (movement) =>
        (movement.kind === 'dispute-withdrawn' || movement.kind === 'dispute-inquiry') &&
        captures.some((capture) => capture.id === movement.of),
    );
    if (!disputeBooked) {
      record(
        {
          kind: 'dispute-withdrawn',
          reference: `${captureId}/dispute`,
          of: captureId,
          minorUnits: '0',
          source: 'read',
          at,
        },
        `the ledger books every dispute: ${provider} says ${captureId} is disputed and no dispute event has come (it carries the amount)`,
      );
    }
  }
  for (const { captureId, refunded } of holdings.refundedUnlisted) {
    const { captured, refunded: booked } = ofCapture(captures, captureId);
    if (refunded === 'all' ? booked >= captured : booked > 0n) continue;
    record(
      {
        kind: 'refund',
        reference: `${captureId}/refund`,
        of: captureId,
        minorUnits: String(refunded === 'all' ? captured - booked : 0n),
        source: 'read',
        at,
      },
      `the ledger books every refund: ${provider} says ${captureId} is refunded ${refunded === 'all' ? 'in full' : 'in part'} and the ledger books less (a refund made elsewhere whose event never came, which ${provider} does not list)`,
    );
  }
  // Nothing left to capture of the ledger's current hold: captured or released in full.
  const currentClosed = figures.remaining === 0n || figures.finalCaptureMade || figures.ended !== undefined;
  for (const { authorizationId, captured } of holdings.capturedUnlisted) {
    const booked = captures.some((capture) => capture.hold === authorizationId && capture.captured > 0n);
    const lacksSome = captured === 'all' && authorizationId === figures.currentHold && !currentClosed;
    if (booked && !lacksSome) continue;
    record(
      {
        kind: 'capture',
        reference: `${authorizationId}/capture`,
        of: authorizationId,
        minorUnits: '0',
        source: 'read',
        at,
      },
      `the ledger books every capture: ${provider} says ${authorizationId} is captured ${captured === 'all' ? 'in full' : 'in part'} and the ledger books ${booked ? 'less' : 'no capture of it'} (a capture made elsewhere whose event never came, which ${provider} does not list)`,
    );
  }
  const resolved = state.ledger.discrepancies.filter(
    (discrepancy) =>
      isOpen(discrepancy) &&
      readInvariants.some((invariant) => discrepancy.invariant.startsWith(invariant)) &&
      !found.has(discrepancyKey(discrepancy)),
  );
  for (const discrepancy of resolved) discrepancy.resolvedAt = at;
  return {
    at,
    reason,
    booked: state.ledger.movements.slice(bookedBefore),
    recorded,
    resolved,
    discrepancies: state.ledger.discrepancies,
    unreadable: holdings.unreadable,
  };
}

function discrepancyKey(discrepancy: Discrepancy): string {
  return `${discrepancy.movement.kind}:${discrepancy.movement.reference}:${discrepancy.invariant}`;
}

/** The current hold as the provider says: ended (voided, expired, denied), or less capturable than remains. */
function bookHold(state: LifecycleState, authorization: Authorization, at: string): void {
  if (authorization.id !== state.currentAuthorizationId || isTerminal(state)) return;
  const { status } = authorization;
  if (status === 'VOIDED' || status === 'EXPIRED' || status === 'DENIED') {
    markEnded(state, status, 'read', authorization.update_time ?? at);
    return;
  }
  releaseUncapturable(state, authorization, { source: 'read', at });
}

/** What the ledger books as captured by one capture (none once declined) and refunded of it, in minor units. */
function ofCapture(captures: CaptureFigures[], captureId: string) {
  return captures
    .filter((capture) => capture.reference === captureId)
    .reduce(
      (sum, capture) => ({
        captured: sum.captured + capture.captured,
        refunded: sum.refunded + capture.refunded,
      }),
      { captured: 0n, refunded: 0n },
    );
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
