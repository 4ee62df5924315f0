import { clearKeyCaller } from '../src/api-callers';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axios from 'axios';
import { Client, Connection } from '@temporalio/client';
import { eventTimeMs } from './event-time';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { buildApi } from '../src/api/server';
import { LifecycleClient } from '../src/client/lifecycle-client';
import { runService, waitForLine } from '../src/dev/child-process';
import { startDevServer } from '../src/dev/dev-server';
import { findFreePort } from '../src/dev/ports';
import { resolveTemporalCli } from '../src/dev/temporal-cli';
import type { PaymentsActivities, StartingAuthorization } from '../src/activities/payments';
import { underProviderNames } from '../src/provider-names';
import { emptyHoldings } from '../src/providers/holdings';
import { paypalCapabilities } from '../src/providers/paypal/provider';
import { createPayPalProvider } from '../src/providers/registry';
import { stripeEndpoint } from '../src/providers/stripe/client';
import { stripeProvider } from '../src/providers/stripe/provider';
import type { Authorization, PaymentCapture } from '../src/providers/resources';
import { startSandbox } from '../src/sandbox/server';
import { WORKER_V8_FLAGS } from '../src/workers/v8-limits';
import { writeWorkflowBundle } from '../src/workers/workflow-bundle';
import { lifecycleWorkflowId, paymentEventSignal, stateQuery } from '../src/workflows/lifecycle/definitions';
import { openApiLimits } from '../test/helpers/api-limits';
import { benchEncryption } from './codec';
import { closeSignal, noopUpdate, openWorkflow } from './trivial-workflow';
import { startNexusCaller } from './nexus';
import { rssOf } from './process-memory';
import { updateTimeline } from './capture-timeline';
import { percentile, runBounded, summary, timed } from './stats';
import { benchProviders, type BenchProvider } from './providers';

// `npm run bench:lifecycle`: lifecycles (start → capture → completed) through the API against the dev server
// and the sandbox, beside the same workflow on no-op activities, a direct sandbox capture and captures through
// Nexus from an order workflow in another namespace (examples/orders). Loopback only. BENCH_PROVIDER
// (paypal, stripe or both) picks the providers of the rows per size, measured in the same run; the other parts
// run on PayPal.

const SIZES = (process.env.BENCH_SIZES ?? '100,1000').split(',').map(Number);
// Four in flight saturate a 2-core machine (dev server, worker, API, sandbox); more only adds queueing.
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const OPEN_LIFECYCLES = Number(process.env.BENCH_OPEN_LIFECYCLES ?? 1000);
const FLOOR_COUNT = Number(process.env.BENCH_FLOOR_COUNT ?? 200);
const HOT_EVENTS = Number(process.env.BENCH_HOT_EVENTS ?? 1000);
// Lifecycles captured one at a time. The p99 of 50 samples was their slowest one; of 200 it is the third slowest.
const ALONE_COUNT = Number(process.env.BENCH_ALONE_COUNT ?? 200);
// Keyed captures of 0.01 through the API on the hot lifecycle while its events arrive, one at a time.
const HOT_CAPTURES = Number(process.env.BENCH_HOT_CAPTURES ?? 50);
const API_KEY = 'bench-key';
const PROVIDERS = benchProviders(process.env.BENCH_PROVIDER);
const PROVIDER_CHUNKS = Number(process.env.BENCH_PROVIDER_CHUNKS ?? 4);
const STRIPE_API_KEY = 'sk_test_sandbox';

const noopActivities: Pick<PaymentsActivities, 'getAuthorization' | 'captureAuthorization' | 'readHoldings'> =
  {
    getAuthorization: async (id: string): Promise<StartingAuthorization> => ({
      id,
      status: 'CREATED',
      amount: { currency_code: 'USD', value: '10.00' },
      create_time: new Date().toISOString(),
      maxCaptures: 100,
      keyRetentionMs: paypalCapabilities.idempotencyKeyRetentionMs,
    }),
    captureAuthorization: async (input): Promise<PaymentCapture> => ({
      id: `noop-${input.idempotencyKey}`,
      status: 'COMPLETED',
      amount: input.amount,
      final_capture: input.finalCapture,
    }),
    // The read before a run closes finds nothing the lifecycle has not booked.
    readHoldings: async () => emptyHoldings(),
  };

interface ProviderRow {
  provider: BenchProvider;
  perSecond: number;
  captureMs: number[];
  direct: number[];
  /** The authorizations whose lifecycles were captured. */
  ids: string[];
}

/** Rows carry their provider's name unless PayPal alone is measured (the default, whose rows read as ever). */
const NAMED_ROWS = PROVIDERS.join() !== 'paypal';

/** A row's label, padded to the figures' column. */
function labelOf(label: string, provider?: BenchProvider): string {
  const named = provider && NAMED_ROWS ? `${label} (${provider})` : label;
  return `${named}:`.padEnd(NAMED_ROWS ? 34 : 24);
}

/** Stripe's figures over PayPal's, when both were measured in the same run. */
function printStripeToPaypal(rows: ProviderRow[]): void {
  const paypal = rows.find((row) => row.provider === 'paypal');
  const stripe = rows.find((row) => row.provider === 'stripe');
  if (!paypal || !stripe) return;
  const latency = (q: number) =>
    (percentile(stripe.captureMs, q) / percentile(paypal.captureMs, q)).toFixed(2);
  console.log(
    `  ${labelOf('Stripe/PayPal')}lifecycles/s ${(stripe.perSecond / paypal.perSecond).toFixed(2)}x, ` +
      `capture via the API p50 ${latency(50)}x, p99 ${latency(99)}x (target: within 1.1x)`,
  );
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const cli = await resolveTemporalCli();
  const server = await startDevServer({
    cliPath: cli.path,
    port: await findFreePort(),
    namespace: 'default',
    moreNamespaces: ['orders'],
  });
  const sandbox = await startSandbox({ port: 0, logger: false });
  const stripeSandbox = PROVIDERS.includes('stripe')
    ? await startSandbox({ port: 0, logger: false, mode: 'stripe' })
    : undefined;
  const connection = await Connection.connect({ address: server.address });
  const encryption = benchEncryption();
  const client = new Client({ connection, dataConverter: encryption.dataConverter });
  const taskQueue = 'bench-lifecycle';
  const lifecycles = new LifecycleClient(client, taskQueue);
  const app = await buildApi({
    lifecycles,
    callers: [clearKeyCaller([API_KEY])],
    // No late-event window: each lifecycle completes as soon as it is captured, as it is timed to.
    defaults: { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '0 seconds' },
    logger: false,
    providers: ['paypal', 'stripe'],
    limits: openApiLimits,
  });
  const api = axios.create({
    baseURL: await app.listen({ port: 0, host: '127.0.0.1' }),
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  const provider = axios.create({ baseURL: sandbox.url });
  const payments = createPayPalProvider({
    baseUrl: sandbox.url,
    credentials: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
  });
  const stripePayments =
    stripeSandbox &&
    stripeProvider({
      apiKey: STRIPE_API_KEY,
      ...stripeEndpoint(stripeSandbox.url),
      timeoutMs: 10_000,
      webhookSecrets: ['whsec_sandbox'],
    });
  // The real worker process on a prebuilt bundle, so its memory can be read on its own.
  const bundlePath = join(mkdtempSync(join(tmpdir(), 'bench-')), 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);
  const startWorker = async () => {
    const service = runService('worker', 'src/workers/main.ts', {
      WORKFLOW_BUNDLE_PATH: bundlePath,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PAYPAL_BASE_URL: sandbox.url,
      // One worker for both providers, as a service configured with both runs.
      ...(stripeSandbox && { PAYMENTS_PROVIDER: 'paypal,stripe', STRIPE_BASE_URL: stripeSandbox.url }),
      WORKER_METRICS_PORT: String(await findFreePort()),
      NODE_OPTIONS: WORKER_V8_FLAGS.join(' '),
      ...encryption.env,
    });
    await waitForLine(service, 'worker polling');
    const idle = rssOf(service.child.pid as number);
    console.log(`Worker ready: RSS ${idle.rssMb.toFixed(0)} MB`);
    return service;
  };
  let worker = await startWorker();
  const nexusCaller = await startNexusCaller({
    address: server.address,
    connection,
    dataConverter: encryption.dataConverter,
    targetTaskQueue: taskQueue,
  });

  const noopWorker = await Worker.create({
    connection: await NativeConnection.connect({ address: server.address }),
    taskQueue: 'bench-noop',
    dataConverter: encryption.dataConverter,
    workflowBundle: { codePath: bundlePath },
    activities: underProviderNames('paypal', noopActivities),
  });
  const noopRunning = noopWorker.run();
  const noopLifecycles = new LifecycleClient(client, 'bench-noop');

  const trivialBundle = join(mkdtempSync(join(tmpdir(), 'bench-')), 'trivial-bundle.js');
  await writeWorkflowBundle(trivialBundle, require.resolve('./trivial-workflow'));
  const trivialWorker = await Worker.create({
    connection: await NativeConnection.connect({ address: server.address }),
    taskQueue: 'bench-trivial',
    workflowBundle: { codePath: trivialBundle },
    dataConverter: encryption.dataConverter,
  });
  const trivialRunning = trivialWorker.run();

  const createAuthorization = async () =>
    (
      await provider.post<Authorization>('/sandbox/authorizations', {
        amount: { currency_code: 'USD', value: '10.00' },
      })
    ).data.id;

  /** A Stripe PaymentIntent of 10.00 held for capture, as the payer's checkout leaves it. */
  const createIntent = async () =>
    (
      await axios.post<{ id: string }>(`${stripeSandbox?.url}/sandbox/payment_intents`, {
        amount: 1000,
        currency: 'usd',
      })
    ).data.id;
  const authorizeAt = { paypal: createAuthorization, stripe: createIntent } as const;

  const throughApi = async (count: number, concurrency = CONCURRENCY, authorize = createAuthorization) => {
    const ids = await Promise.all(Array.from({ length: count }, authorize));
    const captureMs: number[] = [];
    const { ms } = await timed(() =>
      runBounded(count, concurrency, async (i) => {
        const id = ids[i] as string;
        await api.post('/v1/lifecycles', { authorizationId: id });
        const capture = await timed(() =>
          api.post(`/v1/lifecycles/${id}/capture`, {}, { headers: { 'idempotency-key': `bench-${id}` } }),
        );
        captureMs.push(capture.ms);
        await client.workflow.getHandle(lifecycleWorkflowId(id)).result();
      }),
    );
    return { perSecond: (count / ms) * 1000, captureMs, ids };
  };

  /**
   * Each provider's lifecycles through the API and its direct captures, in BENCH_PROVIDER_CHUNKS parts each
   * (default 4) ordered A B B A A B B A…, so that a load beside the bench that comes and goes meets both.
   */
  const perProvider = async (count: number, concurrency: number, directCount: number) => {
    const pair = [...PROVIDERS, ...[...PROVIDERS].reverse()];
    // A single provider runs in one part: there is nothing to interleave.
    const order =
      PROVIDERS.length === 1
        ? PROVIDERS
        : Array.from({ length: Math.ceil(PROVIDER_CHUNKS / 2) }, () => pair).flat();
    const chunks = order.length / PROVIDERS.length;
    const measured = new Map<
      BenchProvider,
      { ms: number; count: number; captureMs: number[]; direct: number[]; ids: string[] }
    >();
    for (const provider of order) {
      const part = Math.ceil(count / chunks);
      const real = await throughApi(part, concurrency, authorizeAt[provider]);
      const direct = await directCaptures(Math.ceil(directCount / chunks), concurrency, provider);
      const sofar = measured.get(provider) ?? { ms: 0, count: 0, captureMs: [], direct: [], ids: [] };
      measured.set(provider, {
        ms: sofar.ms + (part / real.perSecond) * 1000,
        count: sofar.count + part,
        captureMs: [...sofar.captureMs, ...real.captureMs],
        direct: [...sofar.direct, ...direct],
        ids: [...sofar.ids, ...real.ids],
      });
    }
    return PROVIDERS.map((provider): ProviderRow => {
      const { ms, count: done, captureMs, direct, ids } = measured.get(provider)!;
      return { provider, perSecond: (done / ms) * 1000, captureMs, direct, ids };
    });
  };

  const noopShape = async (count: number, round: number) => {
    const { ms } = await timed(() =>
      runBounded(count, CONCURRENCY, async (i) => {
        const id = `noop-${round}-${i}`;
        await noopLifecycles.start({ authorizationId: id, lateEventWindow: '0 seconds' });
        await noopLifecycles.capture(id, { idempotencyKey: `bench-${id}` });
        await client.workflow.getHandle(lifecycleWorkflowId(id)).result();
      }),
    );
    return (count / ms) * 1000;
  };

  const directCaptures = async (
    count: number,
    concurrency = CONCURRENCY,
    provider: 'paypal' | 'stripe' = 'paypal',
  ) => {
    const ids = await Promise.all(Array.from({ length: count }, authorizeAt[provider]));
    const port = provider === 'stripe' && stripePayments ? stripePayments : payments;
    const samples: number[] = [];
    await runBounded(count, concurrency, async (i) => {
      const id = ids[i] as string;
      const capture = () =>
        port.captureAuthorization({
          authorizationId: id,
          amount: { currency_code: 'USD', value: '10.00' },
          finalCapture: true,
          idempotencyKey: `direct-${id}`,
        });
      samples.push((await timed(capture)).ms);
    });
    return samples;
  };

  const eventsOf = async (workflowId: string) =>
    (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];

  /** A history's events by type, most first: where a lifecycle's events go. */
  const byType = (events: temporal.api.history.v1.IHistoryEvent[]) => {
    const counts = new Map<string, number>();
    for (const event of events) {
      const type = temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType);
      counts.set(type, (counts.get(type) ?? 0) + 1);
    }
    return [...counts].sort(([, a], [, b]) => b - a);
  };

  /**
   * A lifecycle with a few state changes (start, partial capture, a provider event, final capture) against
   * the floor: a workflow that starts and completes.
   */
  const historyEvents = async (count: number) => {
    const lifecycleEvents: number[] = [];
    const floorEvents: number[] = [];
    let lastLifecycle: temporal.api.history.v1.IHistoryEvent[] = [];
    for (let i = 0; i < count; i += 1) {
      const id = `events-${Date.now()}-${i}`;
      await noopLifecycles.start({ authorizationId: id, lateEventWindow: '0 seconds' });
      const partial = await noopLifecycles.capture(id, {
        amount: '4.00',
        finalCapture: false,
        idempotencyKey: `partial-${id}`,
      });
      await client.workflow.getHandle(lifecycleWorkflowId(id)).signal(paymentEventSignal, {
        id: `WH-${id}`,
        eventType: 'capture.completed',
        authorizationId: id,
        captureId: partial.id,
        amount: { currency_code: 'USD', value: '4.00' },
      });
      await noopLifecycles.capture(id, { idempotencyKey: `final-${id}` });
      await client.workflow.getHandle(lifecycleWorkflowId(id)).result();
      lastLifecycle = await eventsOf(lifecycleWorkflowId(id));
      lifecycleEvents.push(lastLifecycle.length);
      const trivial = await client.workflow.start('trivialWorkflow', {
        taskQueue: 'bench-trivial',
        workflowId: `trivial-${id}`,
      });
      await trivial.result();
      floorEvents.push((await eventsOf(trivial.workflowId)).length);
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    return { lifecycle: mean(lifecycleEvents), floor: mean(floorEvents), byType: byType(lastLifecycle) };
  };

  /**
   * The latency floor of a capture: a no-op Update (answered from memory, by an open workflow on the same
   * server, worker options and codec), beside captures through the API, captures through the Temporal
   * client alone and direct sandbox captures, all at the same concurrency in one run. What a capture adds
   * over the provider, less the floor, is ours: the API, the provider call's activity and the codec.
   */
  const latencyFloor = async (count: number, concurrency = CONCURRENCY) => {
    const ids = await Promise.all(Array.from({ length: 2 * count }, createAuthorization));
    // Open after their capture, as in production: the run does not close inside the measured capture.
    await runBounded(2 * count, concurrency, async (i) => {
      await api.post('/v1/lifecycles', { authorizationId: ids[i], lateEventWindow: '1 hour' });
    });
    const sample = async (work: (id: string) => Promise<unknown>, offset = 0) => {
      const samples: number[] = [];
      await runBounded(count, concurrency, async (i) => {
        samples.push((await timed(() => work(ids[offset + i] as string))).ms);
      });
      return samples;
    };
    const open = await Promise.all(
      ids
        .slice(0, count)
        .map((id) =>
          client.workflow.start(openWorkflow, { taskQueue: 'bench-trivial', workflowId: `open-${id}` }),
        ),
    );
    // Each answers one Update before the sample: their first tasks are behind them, as the lifecycles' are.
    await runBounded(count, concurrency, async (i) => {
      await open[i]?.executeUpdate(noopUpdate);
    });
    const noop = await sample((id) => client.workflow.getHandle(`open-${id}`).executeUpdate(noopUpdate));
    // Closed before the captures' samples, not during them: their last tasks would load the server meanwhile.
    await Promise.all(open.map((handle) => handle.signal(closeSignal)));
    await Promise.all(open.map((handle) => handle.result()));
    const viaApi = await sample((id) =>
      api.post(`/v1/lifecycles/${id}/capture`, {}, { headers: { 'idempotency-key': `floor-${id}` } }),
    );
    const viaClient = await sample((id) => lifecycles.capture(id, { idempotencyKey: `floor-${id}` }), count);
    const direct = await directCaptures(count, concurrency);
    const at = (q: number) => (samples: number[]) => percentile(samples, q);
    const [p50, p99] = [at(50), at(99)];
    const overhead = p99(viaApi) - p99(direct);
    console.log(`\nLatency floor, ${count} open lifecycles, concurrency ${concurrency}`);
    console.log(`  no-op Update (client):  ${summary(noop)}`);
    console.log(`  capture via the API:    ${summary(viaApi)}`);
    console.log(`  capture via the client: ${summary(viaClient)}`);
    console.log(`  direct sandbox capture: ${summary(direct)}`);
    console.log(
      `  capture p99 overhead:   ${overhead.toFixed(1)} ms = ${(overhead / p99(noop)).toFixed(2)}x the no-op ` +
        `Update's p99 (target <= 100 ms)`,
    );
    console.log(
      `  p50 split:              no-op Update ${p50(noop).toFixed(1)} ms, API ` +
        `${(p50(viaApi) - p50(viaClient)).toFixed(1)} ms, activity and codec ` +
        `${(p50(viaClient) - p50(noop) - p50(direct)).toFixed(1)} ms, provider ${p50(direct).toFixed(1)} ms`,
    );
  };

  /** Workflow-task time (started → completed, from the history) by the events the lifecycle had received. */
  const taskTimes = async (workflowId: string, firstRunId: string) => {
    const tasks: Array<{ received: number; ms: number }> = [];
    let received = 0;
    let runId: string | undefined = firstRunId;
    while (runId) {
      const history: temporal.api.history.v1.IHistory = await client.workflow
        .getHandle(workflowId, runId)
        .fetchHistory();
      runId = undefined;
      let startedAt: number | undefined;
      for (const event of history.events ?? []) {
        if (event.workflowExecutionSignaledEventAttributes) received += 1;
        else if (event.workflowTaskStartedEventAttributes) startedAt = eventTimeMs(event);
        else if (event.workflowTaskCompletedEventAttributes && startedAt !== undefined) {
          tasks.push({ received, ms: eventTimeMs(event) - startedAt });
          startedAt = undefined;
        }
        runId = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? runId;
      }
    }
    return tasks;
  };

  /**
   * A hot lifecycle: `count` provider events (8 in flight) to one lifecycle on the worker process, and
   * meanwhile HOT_CAPTURES keyed captures through the API; its workflow-task time by the events received so
   * far, in tenths, and the captures not answered 2xx (the goal is none). `load` runs beside it (or nothing).
   */
  const hotLifecycle = async (count: number, label: string, load?: () => Promise<unknown>) => {
    const id = await createAuthorization();
    const started = await lifecycles.start({ authorizationId: id });
    const handle = client.workflow.getHandle(started.workflowId);
    const last = `WH-hot-${id}-${count - 1}`;
    let sending = true;
    const loading = (async () => {
      while (load && sending) await load();
    })();
    let non2xx = 0;
    const capturing = (async () => {
      for (let i = 0; i < HOT_CAPTURES; i += 1) {
        const response = await api.post(
          `/v1/lifecycles/${id}/capture`,
          { amount: '0.01' },
          { headers: { 'idempotency-key': `hot-${id}-${i}` }, validateStatus: () => true },
        );
        if (response.status < 200 || response.status >= 300) non2xx += 1;
      }
    })();
    await runBounded(count, 8, async (i) => {
      await handle.signal(paymentEventSignal, {
        id: `WH-hot-${id}-${i}`,
        eventType: 'authorization.created',
        authorizationId: id,
      });
    });
    await capturing;
    sending = false;
    await loading;
    while (!(await handle.query(stateQuery))?.seenEventIds.includes(last))
      await new Promise((resolve) => setTimeout(resolve, 200));
    const tasks = await taskTimes(started.workflowId, started.runId);
    const tenth = Math.ceil(count / 10);
    const cells: string[] = [];
    for (let from = 0; from < count; from += tenth) {
      const ms = tasks.filter((t) => t.received >= from && t.received < from + tenth).map((t) => t.ms);
      // Events that arrive together share a task: a tenth may have none.
      if (ms.length > 0)
        cells.push(`${from}+: ${percentile(ms, 50).toFixed(0)}/${Math.max(...ms).toFixed(0)}`);
    }
    console.log(`  ${label.padEnd(22)}${cells.join('  ')}`);
    console.log(`  ${''.padEnd(22)}non-2xx answers: ${non2xx} of ${HOT_CAPTURES} captures (goal 0)`);
  };

  console.log(
    `Lifecycle benchmark: dev server ${server.address}, sandbox ${sandbox.url}, concurrency ${CONCURRENCY}`,
  );
  const events = await historyEvents(20);
  console.log(
    '\nHistory events per lifecycle (start, partial capture, provider event, final capture), N = 20',
  );
  console.log(`  lifecycle:              ${events.lifecycle.toFixed(1)} events`);
  console.log(`  floor (start, complete): ${events.floor.toFixed(1)} events`);
  console.log(`  ratio to the floor:     ${(events.lifecycle / events.floor).toFixed(1)}x`);
  console.log(
    `  one lifecycle's events: ${events.byType.map(([type, n]) => `${n} ${type.replace('EVENT_TYPE_', '')}`).join(', ')}`,
  );
  // BENCH_EVENTS_ONLY=1 stops after the history events.
  if (!process.env.BENCH_EVENTS_ONLY) {
    for (const provider of PROVIDERS) await throughApi(10, CONCURRENCY, authorizeAt[provider]);
    await noopShape(10, 0);
    for (const [round, size] of SIZES.entries()) {
      console.log(`\nN = ${size}`);
      const rows = await perProvider(size, CONCURRENCY, Math.min(size, 200));
      const noop = await noopShape(size, round + 1);
      const nexus = await nexusCaller.captures(
        await Promise.all(Array.from({ length: Math.min(size, 200) }, createAuthorization)),
        CONCURRENCY,
      );
      for (const row of rows) {
        const of = (label: string) => labelOf(label, row.provider);
        console.log(`  ${of('through the API')}${row.perSecond.toFixed(1)} lifecycles/s`);
        console.log(`  ${of('ratio to no-op')}${(row.perSecond / noop).toFixed(2)}x (target >= 0.8x)`);
        console.log(`  ${of('capture via the API')}${summary(row.captureMs)}`);
        console.log(`  ${of('direct sandbox capture')}${summary(row.direct)}`);
        console.log(
          `  ${of('capture p99 overhead')}${(percentile(row.captureMs, 99) - percentile(row.direct, 99)).toFixed(1)} ms (target <= 100 ms)`,
        );
      }
      console.log(`  ${labelOf('no-op activities')}${noop.toFixed(1)} lifecycles/s`);
      console.log(`  ${labelOf('capture via Nexus')}${summary(nexus)} (from the caller's history, PayPal)`);
      printStripeToPaypal(rows);
    }

    await latencyFloor(Math.min(FLOOR_COUNT, Math.max(...SIZES)));
    console.log(
      `\nHot lifecycle: ${HOT_EVENTS} provider events to one lifecycle; workflow-task ms (p50/max) by events received`,
    );
    await hotLifecycle(HOT_EVENTS, 'alone');
    await hotLifecycle(HOT_EVENTS, 'beside a load', () => throughApi(4));

    console.log(`\nOne lifecycle at a time (capture latency without queueing), N = ${ALONE_COUNT}`);
    const alone = await perProvider(ALONE_COUNT, 1, ALONE_COUNT);
    const nexusAlone = await nexusCaller.captures(
      await Promise.all(Array.from({ length: 25 }, createAuthorization)),
      1,
    );
    for (const row of alone) {
      const of = (label: string) => labelOf(label, row.provider);
      console.log(`  ${of('capture via the API')}${summary(row.captureMs)}`);
      console.log(`  ${of('direct sandbox capture')}${summary(row.direct)}`);
      console.log(
        `  ${of('capture p99 overhead')}${(percentile(row.captureMs, 99) - percentile(row.direct, 99)).toFixed(1)} ms (target <= 50 ms)`,
      );
      console.log(
        `  ${of('where a capture goes')}p50 of each step, the last 40 captures' histories (target: the ` +
          `activity's start → the answer within the direct capture's p50 + 15 ms)`,
      );
      const steps = await updateTimeline(client, row.ids.slice(-40).map(lifecycleWorkflowId));
      for (const step of steps) console.log(`    ${step}`);
    }
    console.log(
      `  ${labelOf('capture via Nexus')}${summary(nexusAlone)} (25 orders, 2 captures each, PayPal)`,
    );
    printStripeToPaypal(alone);

    // A fresh worker, so its peak memory is that of the open lifecycles, not of the throughput rounds.
    await worker.stop();
    worker = await startWorker();
    console.log(`\nOpening ${OPEN_LIFECYCLES} lifecycles that wait on their timers…`);
    const openIds = await Promise.all(Array.from({ length: OPEN_LIFECYCLES }, createAuthorization));
    await runBounded(OPEN_LIFECYCLES, CONCURRENCY, async (i) => {
      await api.post('/v1/lifecycles', { authorizationId: openIds[i] });
    });
    const memory = rssOf(worker.child.pid as number);
    console.log(
      `  worker RSS ${memory.rssMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB with ${OPEN_LIFECYCLES} open (target < 400 MB)`,
    );
  }

  await nexusCaller.stop();
  noopWorker.shutdown();
  trivialWorker.shutdown();
  await Promise.all([noopRunning, trivialRunning]);
  await worker.stop();
  await app.close();
  await connection.close();
  await sandbox.close();
  await stripeSandbox?.close();
  await server.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
