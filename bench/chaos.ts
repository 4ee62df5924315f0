import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axios, { type AxiosInstance } from 'axios';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { startDevServer, type DevServer } from '../src/dev/dev-server';
import { findFreePort } from '../src/dev/ports';
import { startServiceProcesses, type ServiceProcesses } from '../src/dev/cluster/service-processes';
import { BENCH_RATE_LIMIT } from './api-budgets';
import { bound, capturedStates } from './captured-states';
import { benchEncryption } from './codec';
import { DEFAULT_CLUSTER_DATABASE_URL, freeClusterPorts, startClusterStack } from '../src/dev/cluster/stack';
import { linkNames, throughLink, type ClusterLinks, type LinkName } from '../src/dev/cluster/links';
import { toMinorUnits } from '../src/currency-decimals';
import { resolveTemporalCli } from '../src/dev/temporal-cli';
import { createPayPalProvider } from '../src/providers/registry';
import { paymentsDialect, type PaymentsDialectName } from '../src/providers/paypal/dialects';
import type { PaymentCapture } from '../src/providers/resources';
import { createSigningCertificate } from '../src/sandbox/paypal/certificate';
import { startSandbox, type Sandbox } from '../src/sandbox/server';
import { lifecycleWorkflowId } from '../src/workflows/lifecycle/definitions';
import {
  paypalRelaying,
  startDeliveryRelay,
  stripeRelaying,
  type DeliveryRelay,
  type RelayedProvider,
} from './chaos-relay';
import { deliveryLatencies, lifecycleRunsSeeing, traceUnseenEvent } from './chaos-deliveries';
import { providerSandboxes, subscribeToStripeSandbox, type ProviderSandbox } from './provider-sandboxes';
import { benchProviders, type BenchProvider } from './providers';
import { percentile, runBounded, timed } from './stats';

// `npm run bench:chaos`: lifecycles through two APIs while the provider faults, workers are killed and the
// history service restarts; the same on the dev server beside it. Loopback only; bounded in count and time.
// BENCH_PROVIDER (paypal, stripe or both) picks the provider the lifecycles run on, one column per target each.

const LIFECYCLES = Number(process.env.BENCH_LIFECYCLES ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const FAULT_RATE = Number(process.env.BENCH_FAULT_RATE ?? 0.2);
const KILL_EVERY_MS = Number(process.env.BENCH_KILL_EVERY_S ?? 20) * 1000;
const DUPLICATE_RATE = Number(process.env.BENCH_DUPLICATE_RATE ?? 0.1);
const TARGETS = (process.env.BENCH_TARGETS ?? 'cluster,dev').split(',');
const PROVIDERS = benchProviders(process.env.BENCH_PROVIDER);
// Columns and lines name their provider unless PayPal alone is measured (the default, whose output reads as ever).
const NAMED = PROVIDERS.join() !== 'paypal';
const named = (text: string, provider: BenchProvider) => (NAMED ? `${text} (${provider})` : text);
// `1`: the cluster runs with Toxiproxy on its links, and a third round cuts each link during load, then heals it.
const PARTITIONS = process.env.BENCH_PARTITIONS === '1';
// The rounds to run, in this order: all of them unless some are named (e.g. `partitions` alone).
const ROUNDS = (process.env.BENCH_ROUNDS ?? 'clean,chaos,partitions').split(',');
const CUT_MS = Number(process.env.BENCH_CUT_S ?? 20) * 1000;
// Load between two cuts, so that each cut meets calls in flight.
const BETWEEN_CUTS_MS = 5_000;
// `paypal`: PayPal's sandbox answers by PayPal's contract and the service speaks the paypal dialect.
const MODE: PaymentsDialectName = process.env.BENCH_SANDBOX_MODE === 'paypal' ? 'paypal' : 'spec';
// The bench's client and the processes it starts encrypt payloads with one key of this run.
const encryption = benchEncryption();
// Long enough for a capture's webhook, delayed by faults and restarts, to reach its lifecycle.
const LATE_EVENT_WINDOW = process.env.BENCH_LATE_EVENT_WINDOW ?? '60 seconds';
const SETTLE_MS = 300_000;
const API_KEY = 'bench-key';
const DATA_DIR = join(__dirname, '..', '.data', 'bench-chaos');
const PROCESS_LOG = join(DATA_DIR, 'processes.log');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => console.log(line);

/** One Temporal setup the service runs on: its workers and APIs, and how its history service restarts. */
interface Target {
  name: string;
  temporalAddress: string;
  app: ServiceProcesses;
  /** The cluster's links, with BENCH_PARTITIONS=1. */
  links?: ClusterLinks;
  restartHistory(): Promise<void>;
  stop(): Promise<void>;
}

type RoundKind = 'clean' | 'chaos' | 'partitions';

/** What callers got besides final answers: "retry" answers (503/504 with Retry-After), others, no answer. */
interface CallerAnswers {
  retryable: number;
  notRetryable: number;
  noAnswer: number;
}

interface Round {
  started: number;
  completed: number;
  doubleCaptures: number;
  /** Lifecycles whose captured total differs from the sum of the provider's captures. */
  totalsMismatched: number;
  answers: CallerAnswers;
  /** Per link cut: how long after its heal the calls that were waiting on it got their answers (ms). */
  recovery: Array<{ link: LinkName; ms: number[] }>;
  lostLifecycles: number;
  deliveriesLost: number;
  /** Capture events the first run of their lifecycle missed that a later run of the same id recorded. */
  deliveredToLaterRun: number;
  /**
   * Capture events the service took after their lifecycle had closed (recorded unrouted), whose capture the
   * lifecycle's books already held as completed: not seen, and nothing lost (see traceUnseenEvent).
   */
  lateAfterClose: number;
  /** Per capture event delivered: from the provider's first attempt to the signal to its lifecycle (ms). */
  deliveryMs: number[];
  duplicatesSent: number;
  duplicatesAppliedTwice: number;
  perSecond: number;
  workerKills: number;
  historyRestarts: number;
}

const output = (name: string, line: string) => appendFileSync(PROCESS_LOG, `[${name}] ${line}\n`);

/** One provider's side of a run: its sandbox, how it is driven and relayed, what the service is told of it. */
interface ProviderRun {
  provider: BenchProvider;
  sandbox: Sandbox;
  driver: ProviderSandbox;
  relaying: RelayedProvider;
}

const serviceEnv = (run: ProviderRun) => ({
  API_KEYS: API_KEY,
  PAYPAL_DIALECT: MODE,
  ...BENCH_RATE_LIMIT,
  ...encryption.env,
  ...run.driver.serviceEnv(run.sandbox.url),
});

async function clusterTarget(run: ProviderRun, listenerUrl: string): Promise<Target> {
  const { sandbox } = run;
  const stack = await startClusterStack({
    config: loadConfig({ TEMPORAL_TASK_QUEUE: 'payment-authorizations' }),
    ports: await freeClusterPorts(),
    dataDir: join(DATA_DIR, 'cluster'),
    databaseUrl: process.env.CLUSTER_DATABASE_URL ?? DEFAULT_CLUSTER_DATABASE_URL,
    databasePrefix: 'temporal_bench_chaos',
    ui: false,
    characters: false,
    paymentsBaseUrl: sandbox.url,
    webhookListenerUrl: listenerUrl,
    links: PARTITIONS,
    appEnv: serviceEnv(run),
    output,
    progress: (line) => log(`  [cluster] ${line}`),
  });
  return {
    name: 'cluster',
    temporalAddress: stack.temporalAddress,
    app: stack,
    links: stack.links,
    async restartHistory() {
      await stack.temporal.stopService('history');
      await sleep(3_000);
      stack.temporal.startService('history');
    },
    stop: () => stack.stop(),
  };
}

async function devTarget(run: ProviderRun, listenerUrl: string): Promise<Target> {
  const { sandbox } = run;
  const cli = await resolveTemporalCli();
  const port = await findFreePort();
  const dbFile = join(mkdtempSync(join(tmpdir(), 'bench-chaos-')), 'temporal.sqlite');
  const start = () => startDevServer({ cliPath: cli.path, port, namespace: 'default', dbFile });
  let server: DevServer = await start();
  const app = await startServiceProcesses({
    wiring: {
      temporalAddress: server.address,
      namespace: 'default',
      taskQueue: 'payment-authorizations',
      paymentsBaseUrl: sandbox.url,
      webhookListenerUrl: listenerUrl,
    },
    apiPorts: [await findFreePort(), await findFreePort()],
    apiMetricsPorts: [await findFreePort(), await findFreePort()],
    workerMetricsPorts: [await findFreePort(), await findFreePort()],
    bundlePath: join(DATA_DIR, 'dev', 'workflow-bundle.js'),
    appEnv: serviceEnv(run),
    output,
    progress: (line) => log(`  [dev] ${line}`),
  });
  return {
    name: 'dev server',
    temporalAddress: server.address,
    app,
    // The dev server is one process: its "history service" restarts with all of it, on the same SQLite file.
    async restartHistory() {
      await server.stop();
      await sleep(3_000);
      server = await start();
    },
    async stop() {
      await app.stop();
      await server.stop();
    },
  };
}

async function untilAnswered<T>(
  send: () => Promise<{ status: number; data: T; headers: Record<string, unknown> }>,
  answers: CallerAnswers,
  call: Call,
): Promise<{ status: number; data: T }> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const sentAt = Date.now();
    const response = await send().catch(() => undefined);
    if (response && response.status < 500) return response;
    call.retried.push(`${response?.status ?? 'no answer'} after ${seconds(Date.now() - sentAt)}`);
    if (!response) answers.noAnswer += 1;
    else if ([503, 504].includes(response.status) && response.headers['retry-after']) answers.retryable += 1;
    else answers.notRetryable += 1;
    if (Date.now() > deadline) throw new Error(`no answer in ${SETTLE_MS / 1000} s`);
    await sleep(500);
  }
}

/** A call in flight: when it was sent and when it got its final answer. */
interface Call {
  sentAt: number;
  answeredAt?: number;
  /** The answers it was told to retry on, and how long each took. */
  retried: string[];
}

interface Heal {
  link: LinkName;
  at: number;
}

/**
 * Cuts each link in turn during the load, `BETWEEN_CUTS_MS` apart, for `CUT_MS`, then heals it; stops early
 * when the load is over. Answers when each link healed.
 */
async function cutEachLink(links: ClusterLinks, loadOver: () => boolean): Promise<Heal[]> {
  const heals: Array<{ link: LinkName; at: number }> = [];
  for (const link of linkNames) {
    await sleep(BETWEEN_CUTS_MS);
    if (loadOver()) break;
    log(`    cutting ${link} for ${CUT_MS / 1000} s`);
    await links.cut(link);
    await sleep(CUT_MS);
    await links.heal(link);
    heals.push({ link, at: Date.now() });
  }
  return heals;
}

/**
 * Per heal: how long after it each call sent before it (and not answered by then) got its answer. The slowest
 * is named with the answers it retried on, which tell where it waited.
 */
function recoveryAfter(heals: Heal[], calls: Call[]): Round['recovery'] {
  return heals.map(({ link, at }) => {
    const waiting = calls.filter((call) => call.sentAt < at && (call.answeredAt ?? 0) > at);
    const slowest = waiting.reduce<Call | undefined>(
      (worst, call) => (worst && (worst.answeredAt as number) >= (call.answeredAt as number) ? worst : call),
      undefined,
    );
    if (slowest) {
      log(
        `    after ${link}: the slowest call, sent ${seconds(at - slowest.sentAt)} before the heal, was answered ` +
          `${seconds((slowest.answeredAt as number) - at)} after it; retried on: ${slowest.retried.join(', ') || 'none'}`,
      );
    }
    return { link, ms: waiting.map((call) => (call.answeredAt as number) - at) };
  });
}

function minorUnits(value: string | undefined): bigint {
  return value === undefined ? 0n : (toMinorUnits(value, 'USD') ?? 0n);
}

async function runRound(
  target: Target,
  run: ProviderRun,
  relay: DeliveryRelay,
  client: Client,
  kind: RoundKind,
): Promise<Round> {
  const { sandbox, driver } = run;
  const chaos = kind === 'chaos';
  const answers: CallerAnswers = { retryable: 0, notRetryable: 0, noAnswer: 0 };
  const calls: Call[] = [];
  const call = async <T>(send: (record: Call) => Promise<T>): Promise<T> => {
    const record: Call = { sentAt: Date.now(), retried: [] };
    calls.push(record);
    const result = await send(record);
    record.answeredAt = Date.now();
    return result;
  };
  const provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
  const apis: AxiosInstance[] = target.app.apiUrls.map((baseURL) =>
    axios.create({
      baseURL,
      headers: { authorization: `Bearer ${API_KEY}` },
      validateStatus: () => true,
      timeout: 30_000,
    }),
  );
  const ids: string[] = [];
  await runBounded(LIFECYCLES, 16, async () => {
    ids.push(await driver.authorize(sandbox.url, '10.00'));
  });
  const eventsBefore = new Set(relay.events.keys());

  let workerKills = 0;
  let historyRestarts = 0;
  let captured = 0;
  let killer: NodeJS.Timeout | undefined;
  let killing = Promise.resolve();
  let restarting = Promise.resolve();
  if (chaos) {
    const modes = [
      { mode: 'http500' },
      { mode: 'http429', retryAfterSeconds: 1 },
      { mode: 'stall', stallMs: 2_000 },
      { mode: 'commit-then-drop' },
    ];
    for (const fault of modes) {
      await provider.post('/sandbox/faults', {
        operation: 'any',
        count: 1_000_000,
        probability: FAULT_RATE / modes.length,
        ...fault,
      });
    }
    killer = setInterval(() => {
      const index = workerKills % 2;
      workerKills += 1;
      killing = killing.then(async () => {
        await target.app.killWorker(index);
        // A worker cannot start while the server restarts: it tries again.
        for (let attempt = 1; ; attempt += 1) {
          try {
            return await target.app.startWorker(index);
          } catch (error) {
            if (attempt === 10) throw error;
            await sleep(2_000);
          }
        }
      });
    }, KILL_EVERY_MS);
  }

  let started = 0;
  let loadOver = false;
  const cutting =
    kind === 'partitions' && target.links ? cutEachLink(target.links, () => loadOver) : Promise.resolve([]);
  const progress = setInterval(() => log(`    … ${started} started, ${captured} captured`), 15_000);
  const { ms } = await timed(() =>
    runBounded(ids.length, CONCURRENCY, async (i) => {
      const id = ids[i] as string;
      const first = apis[i % 2] as AxiosInstance;
      const second = apis[(i + 1) % 2] as AxiosInstance;
      const start = await call((record) =>
        untilAnswered(
          () => first.post('/v1/lifecycles', { authorizationId: id, lateEventWindow: LATE_EVENT_WINDOW }),
          answers,
          record,
        ),
      );
      if (start.status !== 201 && start.status !== 200)
        throw new Error(`start ${id}: ${start.status} ${JSON.stringify(start.data)}`);
      started += 1;
      const capture = await call((record) =>
        untilAnswered(
          () =>
            second.post<PaymentCapture>(
              `/v1/lifecycles/${id}/capture`,
              {},
              { headers: { 'idempotency-key': `chaos-${id}` } },
            ),
          answers,
          record,
        ),
      );
      if (capture.status !== 200)
        throw new Error(`capture ${id}: ${capture.status} ${JSON.stringify(capture.data)}`);
      captured += 1;
      if (chaos && historyRestarts === 0 && captured >= ids.length * 0.3) {
        historyRestarts = 1;
        log(`    restarting the history service (${target.name})`);
        restarting = target.restartHistory();
      }
    }),
  );
  clearInterval(progress);
  loadOver = true;
  const recovery = recoveryAfter(await cutting, calls);
  if (killer) clearInterval(killer);
  await killing;
  await restarting;
  await provider.delete('/sandbox/faults');

  log(
    `    captured all ${captured} in ${(ms / 1000).toFixed(0)} s; waiting for every lifecycle to complete…`,
  );
  const states = await capturedStates(client, ids, SETTLE_MS);
  await Promise.race([sandbox.deliveriesSettled(), bound(SETTLE_MS)]);
  await relay.settled();

  // Each capture the provider made emits one capture event: a second capture shows there too, also where
  // the provider's books show one charge per authorization (Stripe's single-capture intents).
  const captureEventsOf = new Map<string, number>();
  for (const event of relay.events.values()) {
    if (event.eventType !== 'capture.completed') continue;
    captureEventsOf.set(event.authorizationId, (captureEventsOf.get(event.authorizationId) ?? 0) + 1);
  }
  let doubleCaptures = 0;
  let totalsMismatched = 0;
  await runBounded(ids.length, 16, async (i) => {
    const id = ids[i] as string;
    const held = await driver.captured(sandbox.url, id);
    doubleCaptures += Math.max(0, held.captureIds.length - 1, (captureEventsOf.get(id) ?? 0) - 1);
    const state = states.get(id);
    if (state && minorUnits(state.capturedAmount) !== minorUnits(held.total)) totalsMismatched += 1;
  });
  const ours = new Set(ids);
  const captureEvents = [...relay.events.values()].filter(
    (event) => !eventsBefore.has(event.eventId) && ours.has(event.authorizationId),
  );
  // An event the provider emitted for our captures that never reached the relay is lost as well.
  const emitted = sandbox
    .deliveries()
    .filter((delivery) => delivery.eventType === run.relaying.captureEventType);
  const givenUp = emitted.filter((delivery) => !relay.events.has(delivery.eventId) && delivery.gaveUp);
  for (const delivery of givenUp) {
    log(
      `    lost: the provider gave up on ${delivery.eventId} (${delivery.lastStatus ?? delivery.lastError})`,
    );
  }
  const neverRelayed = givenUp.length;
  let deliveriesLost = neverRelayed;
  let duplicatesAppliedTwice = 0;
  const ourEventIds = new Set(captureEvents.map((event) => event.eventId));
  let deliveredToLaterRun = 0;
  let lateAfterClose = 0;
  for (const event of captureEvents) {
    const state = states.get(event.authorizationId);
    if (!state?.seenEventIds.includes(event.eventId)) {
      // The run whose result was read may not be the only one: a later run of the same id may hold the event.
      const { runs, seenInRun } = await lifecycleRunsSeeing(client, event.authorizationId, event.eventId);
      if (seenInRun) {
        deliveredToLaterRun += 1;
        log(`    ${event.eventId} of ${event.authorizationId} reached run ${seenInRun} (${runs} runs)`);
      } else {
        const closed = await client.workflow
          .getHandle(lifecycleWorkflowId(event.authorizationId))
          .describe()
          .then((lifecycle) => lifecycle.closeTime)
          .catch(() => undefined);
        const record = emitted.find((delivery) => delivery.eventId === event.eventId);
        const trace = await traceUnseenEvent(client, run.provider, record, event, state, closed);
        if (trace.late) lateAfterClose += 1;
        else deliveriesLost += 1;
        log(
          `    ${trace.late ? 'late' : 'lost'}: ${event.eventType} ${event.eventId} of ${event.authorizationId}: ` +
            `first relayed ${event.firstSeenAt.toISOString()}, its lifecycle closed ` +
            `${closed?.toISOString() ?? 'never'} (${runs} runs)`,
        );
        for (const line of trace.lines) log(`      ${line}`);
      }
    }
    const applied =
      state?.recentEvents.filter((recorded) => recorded.id === event.eventId && recorded.applied) ?? [];
    if (event.duplicated && applied.length > 1) duplicatesAppliedTwice += 1;
  }
  return {
    started,
    completed: states.size,
    doubleCaptures,
    totalsMismatched,
    answers,
    recovery,
    lostLifecycles: started - states.size,
    deliveriesLost,
    deliveredToLaterRun,
    lateAfterClose,
    deliveryMs: await deliveryLatencies(
      client,
      run.provider,
      emitted.filter((delivery) => ourEventIds.has(delivery.eventId)),
    ),
    duplicatesSent: captureEvents.filter((event) => event.duplicated).length,
    duplicatesAppliedTwice,
    perSecond: (captured / ms) * 1000,
    workerKills,
    historyRestarts,
  };
}

interface TargetRounds {
  clean?: Round;
  chaos?: Round;
  partitions?: Round;
}

/** One provider's sandbox and how the relay signs its deliveries; PayPal's names its webhook once subscribed. */
async function startProvider(
  provider: BenchProvider,
): Promise<{ sandbox: Sandbox; relaying: RelayedProvider; setWebhookId: (id: string) => void }> {
  const deliveryRetry = { attempts: 12, initialDelayMs: 500, maxDelayMs: 10_000 };
  if (provider === 'stripe') {
    const sandbox = await startSandbox({ port: 0, mode: 'stripe', logger: false, deliveryRetry });
    return { sandbox, relaying: stripeRelaying(), setWebhookId: () => undefined };
  }
  const signing = await createSigningCertificate(new Date());
  const sandbox = await startSandbox({
    port: 0,
    mode: MODE,
    logger: false,
    signingCertificate: signing,
    deliveryRetry,
  });
  let webhookId = '';
  const relaying = paypalRelaying({
    signing,
    certificateUrl: sandbox.certificateUrl,
    webhookId: () => webhookId,
    headerNames: paymentsDialect(MODE).transmissionHeaders,
  });
  return { sandbox, relaying, setWebhookId: (id) => (webhookId = id) };
}

/** Subscribes the relay (through its link, with the links) to the provider's deliveries; PayPal's by the worker. */
async function subscribeRelay(run: ProviderRun, subscribedUrl: string): Promise<string> {
  if (run.provider === 'stripe') {
    await subscribeToStripeSandbox(run.sandbox.url, subscribedUrl);
    return '';
  }
  const payments = createPayPalProvider({
    baseUrl: run.sandbox.url,
    dialect: MODE,
    credentials: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
  });
  const subscriptions = payments.subscriptions;
  if (!subscriptions) throw new Error(`${payments.name} has no webhook subscriptions to read`);
  const webhookId =
    (await subscriptions.listWebhooks()).webhooks.find((webhook) => webhook.url === subscribedUrl)?.id ?? '';
  if (!webhookId) throw new Error(`no webhook subscription for ${subscribedUrl}`);
  return webhookId;
}

async function benchTarget(name: string, provider: BenchProvider): Promise<TargetRounds> {
  const { sandbox, relaying, setWebhookId } = await startProvider(provider);
  const run: ProviderRun = { provider, sandbox, driver: providerSandboxes[provider], relaying };
  // The relay is the listener the target's processes are configured with, so it starts first.
  const current: { target?: Target } = {};
  const relay = await startDeliveryRelay({
    apiUrls: () => current.target?.app.apiUrls ?? [],
    provider: relaying,
    duplicateRate: DUPLICATE_RATE,
  });
  log(`\n${named(name, provider)}: starting (process output in ${PROCESS_LOG})`);
  const target = name === 'cluster' ? await clusterTarget(run, relay.url) : await devTarget(run, relay.url);
  current.target = target;
  // With the links, the provider delivers to the relay through its link: the subscription names the link.
  const subscribedUrl = target.links
    ? throughLink(relay.url, target.links.address('provider-webhooks'))
    : relay.url;
  setWebhookId(await subscribeRelay(run, subscribedUrl));
  const connection = await Connection.connect({ address: target.temporalAddress });
  const client = new Client({ connection, dataConverter: encryption.dataConverter });
  try {
    const rounds: TargetRounds = {};
    if (ROUNDS.includes('clean')) {
      log(`  ${LIFECYCLES} lifecycles, no faults…`);
      rounds.clean = await runRound(target, run, relay, client, 'clean');
    }
    if (ROUNDS.includes('chaos')) {
      log(`  ${LIFECYCLES} lifecycles with chaos…`);
      rounds.chaos = await runRound(target, run, relay, client, 'chaos');
    }
    if (target.links && ROUNDS.includes('partitions')) {
      log(`  ${LIFECYCLES} lifecycles, each link cut for ${CUT_MS / 1000} s in turn…`);
      rounds.partitions = await runRound(target, run, relay, client, 'partitions');
    }
    return rounds;
  } finally {
    await connection.close();
    await target.stop();
    await relay.close();
    await sandbox.close();
  }
}

const seconds = (ms: number) => (Number.isNaN(ms) ? '–' : `${(ms / 1000).toFixed(1)} s`);

/** The partitions round's rows: its invariants, the callers' answers, the time to recover after each heal. */
function partitionRows(): Array<[string, (r: TargetRounds) => string]> {
  const partitions = (value: (round: Round) => string) => of('partitions', value);
  return [
    ['partitions: completed / started', partitions((p) => `${p.completed} / ${p.started}`)],
    [
      'partitions: doubles, lost, deliveries lost',
      partitions((p) => `${p.doubleCaptures}, ${p.lostLifecycles}, ${lostAndLate(p)}`),
    ],
    ['partitions: captured ≠ provider (target 0)', partitions((p) => String(p.totalsMismatched))],
    [
      'partitions: webhook to lifecycle p50/p99/max',
      partitions(
        (p) =>
          `${seconds(percentile(p.deliveryMs, 50))} / ${seconds(percentile(p.deliveryMs, 99))} / ` +
          seconds(p.deliveryMs.length > 0 ? Math.max(...p.deliveryMs) : NaN),
      ),
    ],
    [
      'partitions: 500s / retry answers / none',
      partitions((p) => `${p.answers.notRetryable} / ${p.answers.retryable} / ${p.answers.noAnswer}`),
    ],
    [
      'partitions: recovery after heal p50 / p99',
      partitions((p) => {
        const all = p.recovery.flatMap((cut) => cut.ms);
        return `${seconds(percentile(all, 50))} / ${seconds(percentile(all, 99))}`;
      }),
    ],
    ...linkNames.map((link): [string, (r: TargetRounds) => string] => [
      `  after ${link} p50 / p99`,
      partitions((p) => {
        const cut = p.recovery.find((one) => one.link === link);
        if (!cut) return 'not cut';
        return `${seconds(percentile(cut.ms, 50))} / ${seconds(percentile(cut.ms, 99))} (${cut.ms.length})`;
      }),
    ]),
  ];
}

/** Lost deliveries, and besides them those a later run recorded or that came after their lifecycle closed. */
function lostAndLate(round: Round): string {
  const besides = [
    round.deliveredToLaterRun > 0 && `${round.deliveredToLaterRun} in a later run`,
    round.lateAfterClose > 0 && `${round.lateAfterClose} after the close`,
  ].filter(Boolean);
  return besides.length > 0
    ? `${round.deliveriesLost} (${besides.join(', ')})`
    : String(round.deliveriesLost);
}

/** A row's value from one round of a column, or '–' when that round did not run. */
const of =
  (kind: RoundKind, value: (round: Round) => string) =>
  (r: TargetRounds): string => {
    const round = r[kind];
    return round ? value(round) : '–';
  };

function printTable(results: Array<[string, TargetRounds]>): void {
  const rows: Array<[string, (r: TargetRounds) => string]> = [
    ['lifecycles completed / started', of('chaos', (c) => `${c.completed} / ${c.started}`)],
    ['double captures (target 0)', of('chaos', (c) => String(c.doubleCaptures))],
    ['lost lifecycles (target 0)', of('chaos', (c) => String(c.lostLifecycles))],
    ['deliveries lost (target 0)', of('chaos', (c) => lostAndLate(c))],
    [
      'duplicates applied twice (target 0)',
      of('chaos', (c) => `${c.duplicatesAppliedTwice} of ${c.duplicatesSent}`),
    ],
    ['worker kills / history restarts', of('chaos', (c) => `${c.workerKills} / ${c.historyRestarts}`)],
    ['throughput, no faults', of('clean', (c) => `${c.perSecond.toFixed(1)}/s`)],
    ['throughput, chaos', of('chaos', (c) => `${c.perSecond.toFixed(1)}/s`)],
    [
      'ratio chaos / no faults',
      ({ clean, chaos }) => (clean && chaos ? `${(chaos.perSecond / clean.perSecond).toFixed(2)}x` : '–'),
    ],
    [
      'no-fault round: completed, lost, doubles',
      of('clean', (c) => `${c.completed}/${c.started}, ${c.deliveriesLost}, ${c.doubleCaptures}`),
    ],
    ['captured ≠ provider, chaos (target 0)', of('chaos', (c) => String(c.totalsMismatched))],
    [
      'chaos: 500s / retry answers / none',
      of('chaos', (c) => `${c.answers.notRetryable} / ${c.answers.retryable} / ${c.answers.noAnswer}`),
    ],
    ...(PARTITIONS ? partitionRows() : []),
  ];
  const width = Math.max(16, ...results.map(([name]) => name.length + 2));
  log(`\n${''.padEnd(46)}${results.map(([name]) => name.padEnd(width)).join('')}`);
  for (const [label, value] of rows)
    log(`${label.padEnd(46)}${results.map(([, r]) => value(r).padEnd(width)).join('')}`);
}

async function main() {
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(PROCESS_LOG, '');
  log(
    `Chaos benchmark: ${LIFECYCLES} lifecycles per round, ${CONCURRENCY} in flight, ${FAULT_RATE * 100}% of ` +
      `provider calls faulted (500, 429 + Retry-After, stall, commit-then-drop), a worker killed every ` +
      `${KILL_EVERY_MS / 1000} s, the history service restarted once, ${DUPLICATE_RATE * 100}% of capture ` +
      `webhooks delivered twice (a second signed transmission)${NAMED ? `; providers: ${PROVIDERS.join(', ')}` : ''}`,
  );
  if (PARTITIONS) {
    log(
      `Partitions (cluster): each link (${linkNames.join(', ')}) cut in turn for ${CUT_MS / 1000} s ` +
        `during load, ${BETWEEN_CUTS_MS / 1000} s apart, then healed (Toxiproxy)`,
    );
  }
  const results: Array<[string, TargetRounds]> = [];
  for (const name of TARGETS) {
    for (const provider of PROVIDERS) {
      const column = named(name === 'dev' ? 'dev server' : name, provider);
      results.push([column, await benchTarget(name, provider)]);
      printTable(results);
    }
  }
  const broken = (round: Round | undefined) =>
    round !== undefined &&
    round.doubleCaptures +
      round.lostLifecycles +
      round.deliveriesLost +
      round.duplicatesAppliedTwice +
      round.totalsMismatched >
      0;
  // Links that break answer every caller "retry"; a provider fault may still fail a workflow task (500).
  const failed = results.some(
    ([, { chaos, partitions }]) =>
      broken(chaos) || (partitions && (broken(partitions) || partitions.answers.notRetryable > 0)),
  );
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
