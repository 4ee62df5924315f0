import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { toMinorUnits } from '../../src/currency-decimals';
import {
  capturedMinor,
  CURRENCY,
  holdsMoney,
  ledgerViolations,
  type ProviderCapture,
  type ProviderLedger,
} from './provider-ledger';
import {
  refusedDeliveries,
  violation,
  type Answer,
  type KeyedRequest,
  type MoneyCommand,
  type MoneyModel,
  type MoneyReal,
} from './model';
import type { DisputeOutcomeName } from './model-provider';
import { settle } from './quiet';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';

// The model's commands: what a merchant's order system, the merchant's dashboard, the payer's bank, the
// provider's webhook delivery and the operator's deploys do to one lifecycle. Each command acts on the real
// service and checks what it answered; `Checked` checks the provider's books after every step.

function nextName(model: MoneyModel, prefix: string): string {
  model.sequence += 1;
  return `${prefix}${model.sequence}`;
}

async function ledgerOf(real: MoneyReal): Promise<ProviderLedger> {
  return real.stack.ledger(real.authorizationId);
}

async function send(real: MoneyReal, request: KeyedRequest, lose: boolean): Promise<Answer> {
  const { provider, api } = real.stack;
  if (lose) {
    // Completing an order is a void at the provider.
    const operation = request.operation === 'complete' ? 'void' : request.operation;
    const fault = { operation, mode: 'commit-then-drop', count: 1 };
    const armed = await provider.post('/sandbox/faults', fault);
    if (armed.status !== 201) throw new Error(`fault not armed: ${JSON.stringify(armed.data)}`);
  }
  const response = await api.post(request.path, request.body, {
    headers: { 'idempotency-key': request.key },
  });
  if (lose) await provider.delete('/sandbox/faults');
  return { status: response.status, data: response.data };
}

/** What every answer must satisfy, and what a key's repeated answers must. */
function judge(real: MoneyReal, model: MoneyModel, request: KeyedRequest, answer: Answer): void {
  const issue = (answer.data as { error?: { details?: { issue?: string } } }).error?.details?.issue;
  // The provider's refusal of a move beyond what is left, which PayPal's 115 % or other books could grant.
  const refusedByRule =
    request.operation === 'refund' &&
    [...model.refundsRefused].some((captureId) => request.path.includes(`/captures/${captureId}`));
  const overMove = issue !== undefined && real.stack.books.overMoveIssues.includes(issue) && !refusedByRule;
  if (model.informed && answer.status === 422 && overMove) {
    violation(
      `${request.operation} under key ${request.key} ${JSON.stringify(request.body)} reached the provider beyond ` +
        `what remains (${issue}): the lifecycle knew and let it through`,
    );
  }
  if (request.answer === undefined) {
    if (answer.status >= 200 && answer.status < 300) request.answer = answer;
    return;
  }
  if (!isDeepStrictEqual(request.answer, answer)) {
    violation(
      `key ${request.key} answered differently: first ${JSON.stringify(request.answer)}, now ${JSON.stringify(answer)}`,
    );
  }
}

async function keyed(
  model: MoneyModel,
  real: MoneyReal,
  request: KeyedRequest,
  lose: boolean,
): Promise<void> {
  if (lose) model.informed = false;
  if (!model.keyed.includes(request)) model.keyed.push(request);
  const answer = await send(real, request, lose);
  const seen = `${request.operation} ${answer.status}`;
  answersSeen.set(seen, (answersSeen.get(seen) ?? 0) + 1);
  judge(real, model, request, answer);
  // "Retry later": the request may still act, and the lifecycle hear of it only by webhook.
  if (answer.status >= 500) model.informed = false;
}

/**
 * The lifecycle's id of one of the provider's captures: the same (PayPal), or `<charge>-<n>` for each capture
 * into a charge several captures share (Stripe's multicapture); the provider's id when the lifecycle has none.
 */
async function lifecycleCaptureId(real: MoneyReal, providerId: string, index: number): Promise<string> {
  const response = await real.stack.api.get<LifecycleState>(`/v1/lifecycles/${real.authorizationId}`);
  if (response.status !== 200) return providerId;
  const own = response.data.captures
    .map((capture) => capture.id)
    .filter((id) => id.startsWith(`${providerId}-`));
  return own[index % Math.max(own.length, 1)] ?? providerId;
}

/** A capture under a new key, with an invoice id of its own. */
function captureRequest(
  model: MoneyModel,
  real: MoneyReal,
  amount: string | undefined,
  finalCapture: boolean,
): KeyedRequest {
  const key = nextName(model, 'k');
  const body = { ...(amount && { amount }), finalCapture, invoiceId: `inv-${key}` };
  return { operation: 'capture', path: `/v1/lifecycles/${real.authorizationId}/capture`, key, body };
}

/** A refund of one of the captures holding money at the provider under a new key; none when none holds any. */
async function refundRequest(
  model: MoneyModel,
  real: MoneyReal,
  captureIndex: number,
  amount: string | undefined,
): Promise<KeyedRequest | undefined> {
  const captures = (await ledgerOf(real)).captures.filter(holdsMoney);
  const capture = captures[captureIndex % Math.max(captures.length, 1)];
  if (!capture) return undefined;
  const captureId = await lifecycleCaptureId(real, capture.id, captureIndex);
  const key = nextName(model, 'k');
  const body = { ...(amount && { amount }), invoiceId: `inv-${key}` };
  const path = `/v1/lifecycles/${real.authorizationId}/captures/${captureId}/refund`;
  return { operation: 'refund', path, key, body };
}

/** What the provider's books say was captured, or refunded, in minor units. */
function movedOf(ledger: ProviderLedger, operation: KeyedRequest['operation']): bigint {
  return ledger.captures.reduce(
    (sum, capture) =>
      sum +
      (operation === 'capture'
        ? capture.minor
        : capture.refunds.reduce((refunded, refund) => refunded + refund.minor, 0n)),
    0n,
  );
}

const amountText = (amount: string | undefined) => (amount === undefined ? 'rest' : amount);
const lostText = (lose: boolean) => (lose ? ', answer lost' : '');

export class Capture implements MoneyCommand {
  constructor(
    readonly amount: string | undefined,
    readonly finalCapture: boolean,
    readonly lose: boolean,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    await keyed(model, real, captureRequest(model, real, this.amount, this.finalCapture), this.lose);
  }
  toString = () =>
    `Capture(${amountText(this.amount)}${this.finalCapture ? ', final' : ''}${lostText(this.lose)})`;
}

export class Refund implements MoneyCommand {
  constructor(
    readonly captureIndex: number,
    readonly amount: string | undefined,
    readonly lose: boolean,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const request = await refundRequest(model, real, this.captureIndex, this.amount);
    if (request) await keyed(model, real, request, this.lose);
  }
  toString = () => `Refund(capture #${this.captureIndex}, ${amountText(this.amount)}${lostText(this.lose)})`;
}

/** A command on the lifecycle (`POST /v1/lifecycles/:id/<operation>`) under a new key. */
function lifecycleRequest(
  model: MoneyModel,
  real: MoneyReal,
  operation: 'void' | 'complete' | 'increment' | 'reauthorize',
  body: Record<string, unknown> = {},
): KeyedRequest {
  const path = `/v1/lifecycles/${real.authorizationId}/${operation}`;
  return { operation, path, key: nextName(model, 'k'), body };
}

export class Void implements MoneyCommand {
  constructor(readonly lose: boolean) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    await keyed(model, real, lifecycleRequest(model, real, 'void'), this.lose);
  }
  toString = () => `Void(${lostText(this.lose).slice(2)})`;
}

/** The order system completes the order: nothing more is captured, what remains held is released. */
export class CompleteOrder implements MoneyCommand {
  constructor(readonly lose: boolean) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    await keyed(model, real, lifecycleRequest(model, real, 'complete'), this.lose);
  }
  toString = () => `CompleteOrder(${lostText(this.lose).slice(2)})`;
}

/** The order system raises the hold in place (Stripe's incremental authorization; PayPal has none). */
export class Increment implements MoneyCommand {
  constructor(
    readonly amount: string,
    readonly lose: boolean,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const request = lifecycleRequest(model, real, 'increment', { amount: this.amount });
    await keyed(model, real, request, this.lose);
  }
  toString = () => `Increment(${this.amount}${lostText(this.lose)})`;
}

export class Reauthorize implements MoneyCommand {
  constructor(
    readonly amount: string | undefined,
    readonly lose: boolean,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const body = this.amount ? { amount: this.amount } : {};
    await keyed(model, real, lifecycleRequest(model, real, 'reauthorize', body), this.lose);
  }
  toString = () => `Reauthorize(${amountText(this.amount)}${lostText(this.lose)})`;
}

/** The order system retries an earlier request: the same key and body. */
export class RetrySameKey implements MoneyCommand {
  constructor(
    readonly index: number,
    readonly lose: boolean,
  ) {}
  check = (model: Readonly<MoneyModel>) => model.keyed.length > 0;
  async run(model: MoneyModel, real: MoneyReal) {
    const request = model.keyed[this.index % model.keyed.length];
    if (request) await keyed(model, real, request, this.lose);
  }
  toString = () => `RetrySameKey(request #${this.index}${lostText(this.lose)})`;
}

/**
 * A capture or refund whose answer the order system never gets (the provider acts, or not, and every attempt
 * of the call fails: 503), retried under its key once the provider forgot the key: sent again under it, it
 * would move the money a second time.
 */
export class RetryPastKeyRetention implements MoneyCommand {
  constructor(
    readonly operation: 'capture' | 'refund',
    readonly amount: string | undefined,
    readonly captureIndex: number,
    readonly acted: boolean,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const retention = real.stack.books.keyRetentionMs;
    if (retention === undefined) return;
    const request =
      this.operation === 'capture'
        ? captureRequest(model, real, this.amount, false)
        : await refundRequest(model, real, this.captureIndex, this.amount);
    if (!request) return;
    model.informed = false;
    model.keyed.push(request);
    const { provider, api } = real.stack;
    const faults = [
      ...(this.acted ? [{ operation: request.operation, mode: 'commit-then-drop', count: 1 }] : []),
      { operation: request.operation, mode: 'http500', count: 20 },
    ];
    const before = movedOf(await ledgerOf(real), request.operation);
    for (const fault of faults) await provider.post('/sandbox/faults', fault);
    const firstSent = Date.now();
    const first = await api.post(request.path, request.body, { headers: { 'idempotency-key': request.key } });
    await provider.delete('/sandbox/faults');
    judge(real, model, request, { status: first.status, data: first.data });
    await sleep(Math.max(0, firstSent + retention + 1000 - Date.now()));
    await keyed(model, real, request, false);
    // Stripe's books keep one charge per intent, so two moves under one invoice id do not show there: what
    // one request may move bounds what the provider moved across the command.
    const moved = movedOf(await ledgerOf(real), request.operation) - before;
    const asked = this.amount === undefined ? undefined : toMinorUnits(this.amount, CURRENCY);
    if (asked !== undefined && moved > asked) {
      violation(
        `${request.operation} ${this.amount} under key ${request.key}, retried after the provider forgot the key, moved ${moved} minor units at the provider`,
      );
    }
  }
  toString = () =>
    `RetryPastKeyRetention(${this.operation}${this.operation === 'refund' ? ` of capture #${this.captureIndex}` : ''}, ${amountText(this.amount)}, ${this.acted ? 'acted' : 'did nothing'})`;
}

/**
 * The order system retries an earlier request under a new key: a new request as far as anyone can tell, so
 * a new invoice id; the guards (remaining, refundable, status) must hold it as they hold any.
 */
export class RetryFreshKey implements MoneyCommand {
  constructor(
    readonly index: number,
    readonly lose: boolean,
  ) {}
  check = (model: Readonly<MoneyModel>) => model.keyed.length > 0;
  async run(model: MoneyModel, real: MoneyReal) {
    const earlier = model.keyed[this.index % model.keyed.length];
    if (!earlier) return;
    const key = nextName(model, 'k');
    const body = 'invoiceId' in earlier.body ? { ...earlier.body, invoiceId: `inv-${key}` } : earlier.body;
    await keyed(model, real, { operation: earlier.operation, path: earlier.path, key, body }, this.lose);
  }
  toString = () => `RetryFreshKey(request #${this.index}${lostText(this.lose)})`;
}

/** A capture without an Idempotency-Key: the API requires one (400 naming the header) and moves nothing. */
export class KeylessCapture implements MoneyCommand {
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const invoiceId = `inv-${nextName(model, 'keyless')}`;
    const response = await real.stack.api.post(`/v1/lifecycles/${real.authorizationId}/capture`, {
      invoiceId,
    });
    // Without a lifecycle the answer may be its 404 instead.
    const refused = response.status === 400 || (!model.started && response.status === 404);
    if (!refused) {
      violation(
        `a capture without Idempotency-Key was answered ${response.status} ${JSON.stringify(response.data)}`,
      );
    }
  }
  toString = () => 'KeylessCapture()';
}

/** The merchant captures in the provider's dashboard, with a request id of its own. */
export class DashboardCapture implements MoneyCommand {
  constructor(
    readonly amount: string,
    readonly finalCapture: boolean,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    model.informed = false;
    const current = (await ledgerOf(real)).chain.at(-1)?.id ?? real.authorizationId;
    const name = nextName(model, 'dash');
    await real.stack.books.dashboardCapture(
      real.stack.provider,
      current,
      this.amount,
      this.finalCapture,
      name,
    );
  }
  toString = () => `DashboardCapture(${this.amount}${this.finalCapture ? ', final' : ''})`;
}

/** The merchant refunds in the provider's dashboard. */
export class DashboardRefund implements MoneyCommand {
  constructor(
    readonly captureIndex: number,
    readonly amount: string | undefined,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const captures = (await ledgerOf(real)).captures.filter(holdsMoney);
    const capture = captures[this.captureIndex % Math.max(captures.length, 1)];
    if (!capture) return;
    model.informed = false;
    const name = nextName(model, 'dash');
    await real.stack.books.dashboardRefund(real.stack.provider, capture.id, this.amount, name);
  }
  toString = () => `DashboardRefund(capture #${this.captureIndex}, ${amountText(this.amount)})`;
}

/** The payer's bank reverses what is left of a capture. */
export class Chargeback implements MoneyCommand {
  constructor(readonly captureIndex: number) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const captures = (await ledgerOf(real)).captures.filter(holdsMoney);
    const capture = captures[this.captureIndex % Math.max(captures.length, 1)];
    if (!capture) return;
    const reversal = await real.stack.books.chargeback(real.stack.provider, capture.id);
    if (reversal !== undefined) {
      model.informed = false;
      model.reversals.add(reversal);
    }
  }
  toString = () => `Chargeback(capture #${this.captureIndex})`;
}

/** A completed refund of a capture fails at the provider, or is canceled (PayPal): its money comes back. */
export class RefundFails implements MoneyCommand {
  constructor(
    readonly captureIndex: number,
    readonly cancel: boolean,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const captures = (await ledgerOf(real)).captures.filter(holdsMoney);
    const capture = captures[this.captureIndex % Math.max(captures.length, 1)];
    if (!capture) return;
    const { books, provider } = real.stack;
    const refund = await books.returnRefund(provider, capture.id, this.cancel, model.reversals);
    if (refund !== undefined) model.informed = false;
  }
  toString = () => `RefundFails(capture #${this.captureIndex}${this.cancel ? ', canceled' : ''})`;
}

/** The payer's bank opens a dispute on a capture: an inquiry, or one that withdraws and is then won or lost. */
export class DisputeOutcome implements MoneyCommand {
  constructor(
    readonly captureIndex: number,
    readonly outcome: DisputeOutcomeName,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const { books, provider } = real.stack;
    if (!books.disputeOutcome) return;
    const captures = (await ledgerOf(real)).captures.filter(holdsMoney);
    const capture = captures[this.captureIndex % Math.max(captures.length, 1)];
    if (!capture) return;
    const opened = await books.disputeOutcome(provider, capture.id, this.outcome);
    if (!opened) return;
    model.informed = false;
    if (opened.reversal !== undefined) model.reversals.add(opened.reversal);
    if (opened.refundsRefused) model.refundsRefused.add(capture.id);
  }
  toString = () => `DisputeOutcome(capture #${this.captureIndex}, ${this.outcome})`;
}

/**
 * Held webhook transmissions reach the service: the oldest `count` in order or the newest `count` newest
 * first, each once or twice; the rest stay held (delayed).
 */
export class DeliverWebhooks implements MoneyCommand {
  constructor(
    readonly count: number,
    readonly newestFirst: boolean,
    readonly twice: boolean,
  ) {}
  check = () => true;
  async run(_model: MoneyModel, real: MoneyReal) {
    const released = await real.stack.release({
      order: this.newestFirst ? 'newest' : 'oldest',
      count: this.count,
      copies: this.twice ? 2 : 1,
    });
    const refused = refusedDeliveries(released);
    if (refused.length > 0) violation(`the listener refused deliveries: ${refused.join('; ')}`);
  }
  toString = () =>
    `DeliverWebhooks(${this.newestFirst ? 'newest' : 'oldest'} ${this.count}${this.twice ? ', twice' : ''})`;
}

/**
 * Held webhook transmissions the provider never sends: the oldest or the newest `count` are thrown away. The
 * lifecycle learns what they reported only from an answer, a later event or a reconciliation; what a
 * reconciliation cannot read (ModelProvider.readable) it may never learn.
 */
export class DropDeliveries implements MoneyCommand {
  constructor(
    readonly count: number,
    readonly newestFirst: boolean,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const dropped = await real.stack.discard({
      order: this.newestFirst ? 'newest' : 'oldest',
      count: this.count,
    });
    if (dropped.length === 0) return;
    model.dropped = true;
    model.informed = false;
    if (dropped.some(({ eventType }) => !real.stack.books.readable(eventType))) model.unreadable = true;
  }
  toString = () => `DropDeliveries(${this.newestFirst ? 'newest' : 'oldest'} ${this.count})`;
}

/**
 * An operator terminates the lifecycle's run through Temporal. GET must read it as ended (`runEnded`, no
 * timer), and a command on it is refused as on any ended lifecycle (409) and moves nothing at the provider.
 */
export class TerminateRun implements MoneyCommand {
  check = (model: Readonly<MoneyModel>) => model.started && !model.terminated;
  async run(model: MoneyModel, real: MoneyReal) {
    const lifecycle = `/v1/lifecycles/${real.authorizationId}`;
    // A lifecycle that closed (its late-event window passed) has no run left to terminate.
    if (!(await real.stack.terminate(real.authorizationId))) return;
    model.terminated = true;
    model.informed = false;
    const read = await real.stack.api.get<LifecycleState>(lifecycle);
    if (read.status !== 200 || read.data.runEnded?.how !== 'TERMINATED' || read.data.nextTimer) {
      violation(`a terminated lifecycle reads ${read.status} ${JSON.stringify(read.data)}`);
    }
    model.terminatedLedger = JSON.stringify(read.data.ledger.movements);
    const before = await ledgerOf(real);
    const capture = captureRequest(model, real, undefined, false);
    const voiding: KeyedRequest = {
      operation: 'void',
      path: `${lifecycle}/void`,
      key: nextName(model, 'k'),
      body: {},
    };
    for (const request of [capture, voiding]) {
      const answer = await send(real, request, false);
      if (answer.status !== 409) {
        violation(
          `a ${request.operation} of a terminated lifecycle answered ${answer.status} ${JSON.stringify(answer.data)}`,
        );
      }
    }
    const after = await ledgerOf(real);
    if (!isDeepStrictEqual(after, before)) {
      violation(
        `commands refused on a terminated lifecycle moved money: ${String(capturedMinor(after))} captured`,
      );
    }
  }
  toString = () => 'TerminateRun()';
}

export class RestartWorker implements MoneyCommand {
  check = () => true;
  async run(_model: MoneyModel, real: MoneyReal) {
    await real.stack.stopWorker();
    await real.stack.startWorker();
  }
  toString = () => 'RestartWorker()';
}

/** How long the requests sent while no worker runs are given to reach the lifecycle before one starts. */
const WORKER_DOWN_MS = 300;

/**
 * No worker runs while a capture is sent twice at once under one key (an order system that timed out and
 * retried); a worker starts, and both answers must agree.
 */
export class CaptureWhileWorkerDown implements MoneyCommand {
  constructor(readonly amount: string | undefined) {}
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    const key = nextName(model, 'k');
    const body = { ...(this.amount && { amount: this.amount }), invoiceId: `inv-${key}` };
    const request: KeyedRequest = {
      operation: 'capture',
      path: `/v1/lifecycles/${real.authorizationId}/capture`,
      key,
      body,
    };
    model.keyed.push(request);
    await real.stack.stopWorker();
    const answers = [send(real, request, false), send(real, request, false)];
    await sleep(WORKER_DOWN_MS);
    await real.stack.startWorker();
    for (const answer of await Promise.all(answers)) judge(real, model, request, answer);
  }
  toString = () => `CaptureWhileWorkerDown(${amountText(this.amount)}, sent twice)`;
}

/** Every held delivery reaches the service; once quiet, the lifecycle must agree with the provider's books. */
export class Settle implements MoneyCommand {
  check = () => true;
  async run(model: MoneyModel, real: MoneyReal) {
    await settle(real, model);
    // A lifecycle that may never learn what was dropped, or that follows nothing any more, is not informed;
    // one that learnt what was dropped by reconciling agrees with the provider as if nothing had been.
    model.informed = !model.unreadable && !model.terminated;
    model.dropped = model.unreadable;
  }
  toString = () => 'Settle()';
}

/** A capture the service made: its requests carry invoice ids `inv-…`, the dashboard's its own. */
const byService = (capture: ProviderCapture) => capture.invoiceId?.startsWith('inv-') === true;

/** How many steps the suite ran, shrinking included: the figure it prints. */
export const stepsRun = { count: 0 };

/** How the service answered the keyed requests, by operation and status (`capture 200`): what the search reached. */
export const answersSeen = new Map<string, number>();

/** A command followed by the check of the provider's books: every step keeps the money invariants. */
export class Checked implements MoneyCommand {
  constructor(readonly command: MoneyCommand) {}
  check = (model: Readonly<MoneyModel>) => this.command.check(model);
  async run(model: MoneyModel, real: MoneyReal) {
    stepsRun.count += 1;
    const informed = model.informed;
    await this.command.run(model, real);
    const ledger = await ledgerOf(real);
    const violations = ledgerViolations(ledger);
    // PayPal's sandbox takes captures up to 115 % (Stripe's refuses past the amount): the service must keep to
    // the authorized amount whenever it knew of every capture before asking for one.
    const made = ledger.captures.filter((capture) => !model.captureIds.has(capture.id));
    model.captureIds = new Set(ledger.captures.map((capture) => capture.id));
    // A lifecycle started with overcapture may take what its provider allows, never more.
    const allowed = model.overcapture ? ledger.allowedMinor : ledger.authorizedMinor;
    if (informed && made.some(byService) && capturedMinor(ledger) > allowed) {
      violations.push(`the service captured past the ${allowed} minor units it may`);
    }
    if (violations.length > 0) violation(`after ${this.command.toString()}: ${violations.join('; ')}`);
  }
  toString = () => this.command.toString();
}
