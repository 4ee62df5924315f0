import type { Movement } from '../../src/providers/movements';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import type { ProviderLedger } from './provider-ledger';

// The provider's books and the lifecycle's ledger movement for movement, in one shape: what each of the
// provider's captures took, what each refund gives back (net of one that came back), what disputes withdrew
// from each capture (net of those reinstated). Stripe's captures into one charge show at Stripe only as the
// charge's total, so captures and disputes are compared per provider capture; refunds by the provider's id.

/** `capture <provider capture id>`, `refund <provider refund id>` or `dispute <provider capture id>`. */
export type MoneyLines = Map<string, bigint>;

function add(lines: MoneyLines, line: string, minor: bigint): void {
  lines.set(line, (lines.get(line) ?? 0n) + minor);
}

function withoutZeros(lines: MoneyLines): MoneyLines {
  return new Map([...lines].filter(([, minor]) => minor !== 0n).sort(([a], [b]) => a.localeCompare(b)));
}

/** The provider's books as money lines; `reversals` are the refunds that are chargebacks or disputes. */
export function providerLines(ledger: ProviderLedger, reversals: ReadonlySet<string>): MoneyLines {
  const lines: MoneyLines = new Map();
  for (const capture of ledger.captures) {
    if (capture.status === 'DECLINED' || capture.status === 'FAILED') continue;
    add(lines, `capture ${capture.id}`, capture.minor);
    for (const refund of capture.refunds) {
      if (reversals.has(refund.id)) add(lines, `dispute ${capture.id}`, refund.minor);
      else add(lines, `refund ${refund.id}`, refund.minor);
    }
  }
  return withoutZeros(lines);
}

/**
 * The lifecycle's ledger as money lines, each capture under the provider's capture it is part of (Stripe's
 * `<charge>-<n>` under the charge, a capture counted at start under the intent's charge).
 */
export function lifecycleLines(state: LifecycleState, ledger: ProviderLedger): MoneyLines {
  const providerIds = ledger.captures.map((capture) => capture.id);
  const groupOf = (reference: string | undefined): string => {
    const id = reference ?? '?';
    return providerIds.find((each) => id === each || id.startsWith(`${each}-`)) ?? id;
  };
  const { movements } = state.ledger;
  const about = (kind: Movement['kind'], of: string) =>
    movements.filter((movement) => movement.kind === kind && movement.of === of);
  const sum = (each: Movement[]) => each.reduce((total, movement) => total + BigInt(movement.minorUnits), 0n);
  const lines: MoneyLines = new Map();
  for (const movement of movements) {
    const minor = BigInt(movement.minorUnits);
    switch (movement.kind) {
      case 'capture': {
        const declined = movements.some(
          (each) => each.kind === 'capture-declined' && each.reference === movement.reference,
        );
        if (!declined) add(lines, `capture ${groupOf(movement.reference)}`, minor);
        break;
      }
      case 'refund':
        // A refund spread over a shared charge's captures is booked as `<refund>/<capture>`.
        add(
          lines,
          `refund ${movement.reference.split('/')[0] ?? movement.reference}`,
          minor - sum(about('refund-returned', movement.reference)),
        );
        break;
      case 'dispute-withdrawn':
        add(lines, `dispute ${groupOf(movement.of)}`, minor);
        break;
      case 'dispute-reinstated':
        add(lines, `dispute ${groupOf(movement.of)}`, -minor);
        break;
      default:
        break;
    }
  }
  return withoutZeros(lines);
}

/** The lines that differ: each with what the provider holds and what the ledger books. */
export function differences(provider: MoneyLines, lifecycle: MoneyLines): string[] {
  const lines = new Set([...provider.keys(), ...lifecycle.keys()]);
  return [...lines]
    .filter((line) => (provider.get(line) ?? 0n) !== (lifecycle.get(line) ?? 0n))
    .sort()
    .map((line) => `${line}: provider ${provider.get(line) ?? 0n}, ledger ${lifecycle.get(line) ?? 0n}`);
}

/**
 * Where the lifecycle may not have learnt everything: the lines its ledger books beyond the provider's. A
 * capture or dispute may be less than the provider's (part of it unknown), a refund it knows must be exact.
 */
export function beyondProvider(provider: MoneyLines, lifecycle: MoneyLines): string[] {
  return [...lifecycle]
    .filter(([line, minor]) => {
      const held = provider.get(line) ?? 0n;
      return line.startsWith('refund ') ? minor !== held : minor > held;
    })
    .map(([line, minor]) => `${line}: provider ${provider.get(line) ?? 0n}, ledger ${minor}`);
}
