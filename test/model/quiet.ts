import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { formatMinorUnits, toMinorUnits } from '../../src/currency-decimals';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { ModelViolation, refusedDeliveries, type MoneyModel, type MoneyReal } from './model';
import {
  CURRENCY,
  capturedMinor,
  expectedStatus,
  holdViolations,
  refundedMinor,
  type ProviderLedger,
} from './provider-ledger';

/** How long a quiet lifecycle may take to show what it has been told: its signals are processed in order. */
const QUIET_TIMEOUT_MS = 10_000;
const DELIVERY_ROUNDS = 20;

interface Books {
  status: string;
  captured: string;
  refunded: string;
  /** Movements the lifecycle's ledger refused (ledger.discrepancies): none, for a provider's true books. */
  discrepancies: string[];
}

function providerBooks(ledger: ProviderLedger, reversals: ReadonlySet<string>): Books {
  const refunded = ledger.captures.reduce((sum, capture) => sum + refundedMinor(capture), 0n);
  return {
    status: expectedStatus(ledger, reversals),
    captured: formatMinorUnits(capturedMinor(ledger), CURRENCY),
    refunded: formatMinorUnits(refunded, CURRENCY),
    discrepancies: [],
  };
}

function lifecycleBooks(state: LifecycleState): Books {
  const refunded = toMinorUnits(state.refundedAmount ?? '0', CURRENCY) ?? 0n;
  return {
    status: state.status,
    captured: formatMinorUnits(toMinorUnits(state.capturedAmount, CURRENCY) ?? 0n, CURRENCY),
    refunded: formatMinorUnits(refunded, CURRENCY),
    discrepancies: state.ledger.discrepancies.map(
      ({ movement, invariant }) => `${movement.kind} ${movement.reference}: ${invariant}`,
    ),
  };
}

/** Releases every held delivery (again after a 409 "still verifying") until none is held. */
async function deliverAll(real: MoneyReal): Promise<void> {
  for (let round = 0; round < DELIVERY_ROUNDS; round += 1) {
    const refused = refusedDeliveries(await real.stack.release({}));
    if (refused.length > 0)
      throw new ModelViolation(`the listener refused deliveries: ${refused.join('; ')}`);
    if ((await real.stack.heldCount()) === 0) return;
    await sleep(200);
  }
  throw new Error(`deliveries still answered 409 after ${DELIVERY_ROUNDS} rounds`);
}

/**
 * Makes the run quiet (every delivery in, every verification done) and then requires at most one hold on the
 * payer's card, within what the authorization leaves, and the lifecycle's captured, refunded and status to
 * equal the provider's books, and its ledger to hold no discrepancy (every movement the
 * provider reported booked); it reads until they do or the time-out passes. A run whose
 * start the service refused has no lifecycle to compare.
 */
export async function settle(
  real: MoneyReal,
  model: Pick<MoneyModel, 'started' | 'reversals'>,
): Promise<void> {
  await deliverAll(real);
  await real.stack.verificationsDone();
  if (!model.started) return;
  const { reversals } = model;
  const deadline = Date.now() + QUIET_TIMEOUT_MS;
  for (;;) {
    const ledger = await real.stack.ledger(real.authorizationId);
    const holds = holdViolations(ledger);
    if (holds.length > 0) throw new ModelViolation(`once quiet, ${holds.join('; ')}`);
    const expected = providerBooks(ledger, reversals);
    const response = await real.stack.api.get<LifecycleState>(`/v1/lifecycles/${real.authorizationId}`);
    const actual = response.status === 200 ? lifecycleBooks(response.data) : { answer: response.status };
    if (isDeepStrictEqual(actual, expected)) return;
    if (Date.now() >= deadline) {
      throw new ModelViolation(
        `once quiet, the lifecycle ${JSON.stringify(actual)} differs from the provider ${JSON.stringify(expected)}`,
      );
    }
    await sleep(200);
  }
}
