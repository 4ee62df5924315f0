import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { formatMinorUnits, toMinorUnits } from '../../src/currency-decimals';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { ModelViolation, refusedDeliveries, type MoneyModel, type MoneyReal } from './model';
import { beyondProvider, differences, lifecycleLines, providerLines } from './movements';
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
/**
 * How long a delivery may answer 409 (its earlier transmission still being verified): a verification whose
 * routing met no worker (RestartWorker, CaptureWhileWorkerDown) retries it up to a minute apart.
 */
const VERIFYING_TIMEOUT_MS = 150_000;

interface Books {
  status: string;
  captured: string;
  refunded: string;
  /** Movements the lifecycle's ledger refused and still holds open (ledger.discrepancies): none, for a provider's true books. */
  discrepancies: string[];
}

/**
 * The provider's books as the lifecycle should show them. Whether the lifecycle completed the order, not
 * voided it, is its own: the provider voided the authorization either way.
 */
function providerBooks(ledger: ProviderLedger, reversals: ReadonlySet<string>, state: LifecycleState): Books {
  const refunded = ledger.captures.reduce((sum, capture) => sum + refundedMinor(capture), 0n);
  const completed = state.ledger.movements.some(
    (movement) => movement.kind === 'release' && movement.reason === 'order-complete',
  );
  return {
    status: expectedStatus(ledger, reversals, completed),
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
    discrepancies: state.ledger.discrepancies
      .filter((discrepancy) => discrepancy.resolvedAt === undefined)
      .map(({ movement, invariant }) => `${movement.kind} ${movement.reference}: ${invariant}`),
  };
}

/** Releases every held delivery (again after a 409 "still verifying") until none is held. */
async function deliverAll(real: MoneyReal): Promise<void> {
  const deadline = Date.now() + VERIFYING_TIMEOUT_MS;
  for (;;) {
    const refused = refusedDeliveries(await real.stack.release({}));
    if (refused.length > 0)
      throw new ModelViolation(`the listener refused deliveries: ${refused.join('; ')}`);
    if ((await real.stack.heldCount()) === 0) return;
    if (Date.now() >= deadline)
      throw new Error(`deliveries still answered 409 after ${VERIFYING_TIMEOUT_MS / 1000} s`);
    await sleep(500);
  }
}

/**
 * The discrepancies a reconciliation records for a refund or a capture whose event never came and which the
 * provider does not list (PayPal's): the capture's or authorization's status says more than the ledger books.
 */
const UNLISTED = ['the ledger books every refund', 'the ledger books every capture'];

type Settled = Pick<
  MoneyModel,
  'started' | 'reversals' | 'dropped' | 'unreadable' | 'terminated' | 'terminatedLedger'
>;

interface ReconcileSummary {
  booked: unknown[];
  recorded: unknown[];
}

/**
 * The lifecycle reconciles with its provider: refused (409) only once its run was terminated. One that has
 * heard every event (no delivery dropped) agreed with the provider already, so its reconciliation books and
 * records nothing.
 */
async function reconcile(real: MoneyReal, model: Settled): Promise<void> {
  const response = await real.stack.api.post<ReconcileSummary>(
    `/v1/lifecycles/${real.authorizationId}/reconcile`,
    {},
  );
  if (model.terminated && response.status === 409) return;
  if (response.status !== 200) {
    throw new ModelViolation(
      `the reconciliation answered ${response.status} ${JSON.stringify(response.data)}${model.terminated ? ' (terminated)' : ''}`,
    );
  }
  const { booked, recorded } = response.data;
  if (!model.dropped && !model.terminated && (booked.length > 0 || recorded.length > 0)) {
    throw new ModelViolation(
      `every delivery in, the lifecycle agreed with the provider, yet its reconciliation booked ${JSON.stringify(booked)} and recorded ${JSON.stringify(recorded)}`,
    );
  }
}

/** Reads until the lifecycle agrees with the provider's books (disagreement) or the time-out passes. */
async function agreed(real: MoneyReal, model: Settled, when: string): Promise<void> {
  const deadline = Date.now() + QUIET_TIMEOUT_MS;
  for (;;) {
    const ledger = await real.stack.ledger(real.authorizationId);
    const holds = holdViolations(ledger);
    if (holds.length > 0) throw new ModelViolation(`once quiet, ${holds.join('; ')}`);
    const response = await real.stack.api.get<LifecycleState>(`/v1/lifecycles/${real.authorizationId}`);
    const why = disagreement(model, ledger, response);
    if (why === undefined) return;
    if (Date.now() >= deadline) throw new ModelViolation(`once quiet${when}, ${why}`);
    await sleep(200);
  }
}

/**
 * What the lifecycle must agree on with the provider's books once quiet and reconciled, or why it does not:
 * its captured, refunded, status and no discrepancy, and its ledger movement for movement. A lifecycle that may
 * not have learnt what a dropped delivery reported books nothing the provider does not hold (and records no
 * discrepancy but a refund it could not find); one whose run was terminated books nothing after its end.
 */
function disagreement(
  model: Settled,
  ledger: ProviderLedger,
  response: { status: number; data: LifecycleState },
) {
  if (response.status !== 200) return `the lifecycle answered ${response.status}`;
  const state = response.data;
  if (model.terminated) {
    const now = JSON.stringify(state.ledger.movements);
    const unchanged = state.runEnded === undefined || now === model.terminatedLedger;
    return unchanged
      ? undefined
      : `a terminated lifecycle booked ${now} after its end (${model.terminatedLedger})`;
  }
  const expected = providerLines(ledger, model.reversals);
  const actual = lifecycleLines(state, ledger);
  if (model.unreadable) {
    const beyond = beyondProvider(expected, actual);
    const discrepancies = lifecycleBooks(state).discrepancies.filter(
      (each) => !UNLISTED.some((unlisted) => each.includes(unlisted)),
    );
    if (beyond.length === 0 && discrepancies.length === 0) return undefined;
    return `after a dropped delivery it could not read, the ledger books beyond the provider: ${[...beyond, ...discrepancies].join('; ')}`;
  }
  const books = { expected: providerBooks(ledger, model.reversals, state), actual: lifecycleBooks(state) };
  const moves = differences(expected, actual);
  if (isDeepStrictEqual(books.actual, books.expected) && moves.length === 0) return undefined;
  return `the lifecycle ${JSON.stringify(books.actual)} differs from the provider ${JSON.stringify(books.expected)}${moves.length > 0 ? `; movements: ${moves.join('; ')}` : ''}`;
}

/**
 * Makes the run quiet (every delivery in, every verification done), has the lifecycle reconcile with its
 * provider, and then requires at most one hold on the payer's card, within what the authorization leaves, and
 * the lifecycle to agree with the provider's books (disagreement). A lifecycle that has heard every event must
 * agree before it reconciles too: the reconciliation must not be what makes it agree. A run whose start the
 * service refused has no lifecycle to compare.
 */
export async function settle(real: MoneyReal, model: Settled): Promise<void> {
  await deliverAll(real);
  await real.stack.verificationsDone();
  if (!model.started) return;
  if (!model.dropped) await agreed(real, model, '');
  await reconcile(real, model);
  await agreed(real, model, ' and reconciled');
}
