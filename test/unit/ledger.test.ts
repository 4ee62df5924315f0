import fc from 'fast-check';
import { figuresOf, statusOf } from '../../src/workflows/lifecycle/ledger/figures';
import {
  appendMovement,
  brokenInvariant,
  emptyLedger,
  isOpen,
} from '../../src/workflows/lifecycle/ledger/invariants';
import type { Ledger, Movement, MovementKind } from '../../src/providers/movements';

// The ledger's pure rules: figures as functions of movements, and what an append books or refuses.

const at = '2026-11-01T00:00:00Z';

function movement(fields: Partial<Movement> & Pick<Movement, 'kind' | 'reference' | 'minorUnits'>): Movement {
  return { source: 'answer', at, ...fields };
}

const hold = (reference = 'A1', minorUnits = '10000') => movement({ kind: 'hold', reference, minorUnits });
const capture = (reference: string, minorUnits: string, fields: Partial<Movement> = {}) =>
  movement({ kind: 'capture', reference, of: 'A1', minorUnits, ...fields });
const refund = (reference: string, of: string, minorUnits: string, fields: Partial<Movement> = {}) =>
  movement({ kind: 'refund', reference, of, minorUnits, ...fields });

function ledgerOf(...movements: Movement[]): Ledger {
  const ledger = emptyLedger();
  for (const each of movements) appendMovement(ledger, each);
  return ledger;
}

describe('figures of a ledger', () => {
  it('count captures against the current hold and what remains of it', () => {
    const figures = figuresOf(ledgerOf(hold(), capture('C1', '3000'), capture('C2', '2000')).movements);
    expect(figures).toMatchObject({ authorized: 10000n, captured: 5000n, remaining: 5000n, refunded: 0n });
    expect(statusOf(figures)).toBe('PARTIALLY_CAPTURED');
  });

  it('release the rest of the hold with a final capture, and give it back when that capture is declined', () => {
    const ledger = ledgerOf(
      hold(),
      capture('C1', '3000', { final: true }),
      movement({ kind: 'release', reference: 'C1', of: 'A1', minorUnits: '7000', reason: 'final-capture' }),
    );
    expect(statusOf(figuresOf(ledger.movements))).toBe('CAPTURED');
    appendMovement(ledger, movement({ kind: 'capture-declined', reference: 'C1', minorUnits: '3000' }));
    const figures = figuresOf(ledger.movements);
    expect(figures).toMatchObject({ captured: 0n, remaining: 10000n });
    expect(figures.captures[0]?.status).toBe('DECLINED');
    expect(statusOf(figures)).toBe('AUTHORIZED');
  });

  it('move a capture and the lifecycle back when a refund comes back or a dispute is won', () => {
    const ledger = ledgerOf(hold('A1', '3000'), capture('C1', '3000'), refund('R1', 'C1', '3000'));
    expect(statusOf(figuresOf(ledger.movements))).toBe('REFUNDED');
    appendMovement(
      ledger,
      movement({ kind: 'refund-returned', reference: 'R1', of: 'R1', minorUnits: '3000' }),
    );
    expect(figuresOf(ledger.movements)).toMatchObject({ refunded: 0n });
    expect(statusOf(figuresOf(ledger.movements))).toBe('CAPTURED');

    appendMovement(
      ledger,
      movement({ kind: 'dispute-withdrawn', reference: 'D1', of: 'C1', minorUnits: '3000' }),
    );
    expect(statusOf(figuresOf(ledger.movements))).toBe('REVERSED');
    appendMovement(
      ledger,
      movement({ kind: 'dispute-reinstated', reference: 'D1', of: 'C1', minorUnits: '3000' }),
    );
    expect(figuresOf(ledger.movements)).toMatchObject({ reversed: 0n });
    expect(statusOf(figuresOf(ledger.movements))).toBe('CAPTURED');
  });

  it('withdraw nothing for an inquiry', () => {
    const ledger = ledgerOf(
      hold('A1', '3000'),
      capture('C1', '3000'),
      movement({ kind: 'dispute-inquiry', reference: 'D1', of: 'C1', minorUnits: '3000' }),
    );
    expect(figuresOf(ledger.movements)).toMatchObject({ reversed: 0n });
    expect(statusOf(figuresOf(ledger.movements))).toBe('CAPTURED');
  });

  it('end the lifecycle with a void of the current hold, and count captures made before it', () => {
    const ledger = ledgerOf(
      hold(),
      capture('C1', '1000'),
      movement({ kind: 'release', reference: 'A1', of: 'A1', minorUnits: '9000', reason: 'void' }),
    );
    expect(figuresOf(ledger.movements)).toMatchObject({ captured: 1000n, remaining: 0n, ended: 'VOIDED' });
    expect(statusOf(figuresOf(ledger.movements))).toBe('VOIDED');
  });

  it('take what remains from a reauthorization’s new hold', () => {
    const ledger = ledgerOf(
      hold(),
      capture('C1', '4000'),
      movement({ kind: 'release', reference: 'A1', of: 'A1', minorUnits: '6000', reason: 'replaced' }),
      hold('A2', '6000'),
    );
    expect(figuresOf(ledger.movements)).toMatchObject({
      authorized: 6000n,
      captured: 4000n,
      remaining: 6000n,
    });
  });
});

describe('an append', () => {
  it('books a movement once per provider reference, whichever source came first', () => {
    const ledger = ledgerOf(hold(), capture('C1', '5000'));
    expect(appendMovement(ledger, refund('R1', 'C1', '2000', { source: 'event' }))).toBe('booked');
    expect(appendMovement(ledger, refund('R1', 'C1', '2000', { key: 'k-1' }))).toBe('already booked');
    expect(figuresOf(ledger.movements).refunded).toBe(2000n);
  });

  it('records a refund beyond its capture as a discrepancy, not booked', () => {
    const ledger = ledgerOf(hold(), capture('C1', '5000'), refund('R1', 'C1', '4000'));
    expect(appendMovement(ledger, refund('R2', 'C1', '2000'))).toBe('discrepancy');
    expect(ledger.discrepancies).toEqual([
      expect.objectContaining({ invariant: expect.stringContaining('refunded ≤ captured per capture') }),
    ]);
    expect(figuresOf(ledger.movements).refunded).toBe(4000n);
  });

  it('records a capture beyond the hold and its allowance as a discrepancy', () => {
    const ledger = ledgerOf(hold('A1', '10000'));
    expect(appendMovement(ledger, capture('C1', '10500'))).toBe('discrepancy');
    const allowance = { captureAllowance: (held: bigint) => held / 10n };
    expect(appendMovement(ledger, capture('C1', '10500'), allowance)).toBe('booked');
  });

  it('refuses a second provider action under one key', () => {
    const ledger = ledgerOf(hold(), capture('C1', '1000', { key: 'k-1' }));
    expect(appendMovement(ledger, capture('C2', '1000', { key: 'k-1' }))).toBe('discrepancy');
    expect(ledger.discrepancies[0]?.invariant).toMatch(/one provider action per key/);
  });

  it('books a refused refund with its return when the refund came back: the pair moves nothing', () => {
    const withdrawn = movement({ kind: 'dispute-withdrawn', reference: 'D1', of: 'C1', minorUnits: '3000' });
    const ledger = ledgerOf(hold(), capture('C1', '3000'), withdrawn);
    expect(appendMovement(ledger, refund('R1', 'C1', '500', { source: 'event' }))).toBe('discrepancy');
    const returned = movement({ kind: 'refund-returned', reference: 'R1', of: 'R1', minorUnits: '500' });
    expect(appendMovement(ledger, returned)).toBe('booked as a pair');
    expect(appendMovement(ledger, returned)).toBe('already booked');
    expect(ledger.discrepancies).toEqual([expect.objectContaining({ resolvedAt: at })]);
    expect(figuresOf(ledger.movements)).toMatchObject({ refunded: 0n, reversed: 3000n });
  });

  it('books a refused refund with its return whose event came first', () => {
    const withdrawn = movement({ kind: 'dispute-withdrawn', reference: 'D1', of: 'C1', minorUnits: '3000' });
    const ledger = ledgerOf(hold(), capture('C1', '3000'), withdrawn);
    const returned = movement({ kind: 'refund-returned', reference: 'R1', of: 'R1', minorUnits: '500' });
    expect(appendMovement(ledger, returned)).toBe('discrepancy');
    expect(appendMovement(ledger, refund('R1', 'C1', '500', { source: 'event' }))).toBe('booked as a pair');
    expect(ledger.discrepancies.filter(isOpen)).toEqual([]);
    expect(figuresOf(ledger.movements)).toMatchObject({ refunded: 0n, reversed: 3000n });
  });

  it('books a refused withdrawal with its reinstatement: a dispute won while refunds took what it withdrew', () => {
    // Stripe: a refund of 100.00 failed (its event not come yet), a dispute withdrew what the charge then had
    // left, and was won. Together the withdrawal and its reinstatement move nothing.
    const ledger = ledgerOf(hold(), capture('C1', '10000'), refund('R1', 'C1', '10000'));
    const withdrawn = movement({ kind: 'dispute-withdrawn', reference: 'D1', of: 'C1', minorUnits: '10000' });
    expect(appendMovement(ledger, withdrawn)).toBe('discrepancy');
    expect(appendMovement(ledger, { ...withdrawn, kind: 'dispute-reinstated' })).toBe('booked as a pair');
    expect(ledger.discrepancies.filter(isOpen)).toEqual([]);
    expect(figuresOf(ledger.movements)).toMatchObject({ refunded: 10000n, reversed: 0n });
  });

  it('books two refused movements, one undoing the other, as a pair once the ledger can hold them', () => {
    const ledger = ledgerOf(hold());
    const withdrawn = movement({ kind: 'dispute-withdrawn', reference: 'D1', of: 'C1', minorUnits: '10000' });
    for (const early of [refund('R1', 'C1', '10000', { source: 'event' }), withdrawn])
      expect(appendMovement(ledger, early)).toBe('discrepancy');
    expect(appendMovement(ledger, { ...withdrawn, kind: 'dispute-reinstated' })).toBe('discrepancy');
    expect(appendMovement(ledger, capture('C1', '10000'))).toBe('booked');
    expect(ledger.discrepancies.filter(isOpen)).toEqual([]);
    expect(figuresOf(ledger.movements)).toMatchObject({ captured: 10000n, refunded: 10000n, reversed: 0n });
  });

  it('books a refused withdrawal with its reinstatement whose event came first', () => {
    const ledger = ledgerOf(hold(), capture('C1', '10000'), refund('R1', 'C1', '10000'));
    const withdrawn = movement({ kind: 'dispute-withdrawn', reference: 'D1', of: 'C1', minorUnits: '10000' });
    expect(appendMovement(ledger, { ...withdrawn, kind: 'dispute-reinstated' })).toBe('discrepancy');
    expect(appendMovement(ledger, withdrawn)).toBe('booked as a pair');
    expect(ledger.discrepancies.filter(isOpen)).toEqual([]);
    expect(figuresOf(ledger.movements)).toMatchObject({ refunded: 10000n, reversed: 0n });
  });

  it('books a refused movement once the ledger can hold it: a dispute whose event came before a refund’s return', () => {
    const ledger = ledgerOf(hold(), capture('C1', '10000'), refund('R1', 'C1', '10000'));
    const withdrawn = movement({ kind: 'dispute-withdrawn', reference: 'D1', of: 'C1', minorUnits: '9500' });
    expect(appendMovement(ledger, withdrawn)).toBe('discrepancy');
    expect(figuresOf(ledger.movements).reversed).toBe(0n);
    const returned = movement({ kind: 'refund-returned', reference: 'R1', of: 'R1', minorUnits: '10000' });
    expect(appendMovement(ledger, returned)).toBe('booked');
    expect(figuresOf(ledger.movements)).toMatchObject({ refunded: 0n, reversed: 9500n });
    expect(ledger.discrepancies).toEqual([expect.objectContaining({ refused: true, resolvedAt: at })]);
    expect(appendMovement(ledger, withdrawn)).toBe('already booked');
  });

  it('books a refund whose event came before its capture once the capture is booked', () => {
    const ledger = ledgerOf(hold());
    expect(appendMovement(ledger, refund('R1', 'C1', '1000', { source: 'event' }))).toBe('discrepancy');
    expect(appendMovement(ledger, capture('C1', '3000'))).toBe('booked');
    expect(figuresOf(ledger.movements)).toMatchObject({ captured: 3000n, refunded: 1000n });
    expect(ledger.discrepancies.filter(isOpen)).toEqual([]);
  });

  it('records a discrepancy once however often it comes', () => {
    const ledger = ledgerOf(hold());
    appendMovement(ledger, refund('R1', 'C9', '100', { source: 'event' }));
    appendMovement(ledger, refund('R1', 'C9', '100', { source: 'event' }));
    expect(ledger.discrepancies).toHaveLength(1);
  });
});

const movementKinds: MovementKind[] = [
  'hold',
  'release',
  'capture',
  'capture-completed',
  'capture-declined',
  'refund',
  'refund-returned',
  'dispute-withdrawn',
  'dispute-reinstated',
  'dispute-inquiry',
];

describe('generated sequences of movements', () => {
  const references = ['A1', 'A2', 'C1', 'C2', 'C3', 'R1', 'R2', 'D1'];
  const generated = fc.record({
    kind: fc.constantFrom<MovementKind[]>(...movementKinds),
    reference: fc.constantFrom(...references),
    of: fc.constantFrom(...references),
    minorUnits: fc.bigInt({ min: 0n, max: 20000n }).map(String),
    source: fc.constantFrom<Movement['source'][]>('answer', 'event', 'read'),
    key: fc.option(fc.constantFrom('k-1', 'k-2'), { nil: undefined }),
    final: fc.option(fc.constant(true as const), { nil: undefined }),
    reason: fc.constantFrom('void', 'final-capture', 'replaced', undefined),
  });

  it('never break an invariant silently: every append is booked, already booked, or a discrepancy', () => {
    fc.assert(
      fc.property(fc.array(generated, { maxLength: 40 }), (sequence) => {
        const ledger = emptyLedger();
        for (const each of sequence) {
          const fields = Object.fromEntries(Object.entries(each).filter(([, value]) => value !== undefined));
          const candidate = { ...fields, at } as Movement;
          const before = ledger.movements.length;
          const refusedBefore = ledger.discrepancies.filter((each) => each.refused && isOpen(each));
          const outcome = appendMovement(ledger, candidate);
          const added = { booked: 1, 'booked as a pair': 1, 'already booked': 0, discrepancy: 0 };
          // Besides the movement, a booking books the refused movements it makes room for, resolving each (a
          // pair's other half among them).
          const bookedLate = refusedBefore.filter(
            (each) => !isOpen(each) && ledger.movements.includes(each.movement),
          ).length;
          if (added[outcome] === 0) expect(bookedLate).toBe(0);
          expect(ledger.movements.length).toBe(before + added[outcome] + bookedLate);
          if (outcome === 'discrepancy') expect(ledger.discrepancies.length).toBeGreaterThan(0);
          // What is booked keeps every invariant: each prefix of the ledger appended cleanly.
          const figures = figuresOf(ledger.movements);
          for (const captureFigures of figures.captures) {
            expect(captureFigures.refunded).toBeGreaterThanOrEqual(0n);
            expect(captureFigures.reversed).toBeGreaterThanOrEqual(0n);
            expect(captureFigures.refunded + captureFigures.reversed).toBeLessThanOrEqual(
              captureFigures.captured,
            );
          }
          expect(figures.remaining).toBeGreaterThanOrEqual(0n);
          const identities = ledger.movements.map((booked) => `${booked.kind}:${booked.reference}`);
          expect(new Set(identities).size).toBe(identities.length);
        }
        // A movement booked with what undoes it (the next movement) appended cleanly as one with it.
        ledger.movements.forEach((booked, index) => {
          const next = ledger.movements[index + 1];
          const pair =
            (booked.kind === 'refund' && next?.kind === 'refund-returned' && next.of === booked.reference) ||
            (booked.kind === 'dispute-withdrawn' &&
              next?.kind === 'dispute-reinstated' &&
              next.reference === booked.reference);
          const appended = pair ? [booked] : [];
          expect(
            brokenInvariant(ledger.movements.slice(0, index).concat(appended), pair ? next : booked),
          ).toBeUndefined();
        });
      }),
      { numRuns: 300 },
    );
  });
});
