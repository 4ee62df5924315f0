import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import axios, { type AxiosInstance } from 'axios';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import { loadConfig } from '../src/config';
import { postgresServer, temporalDatabases } from '../src/dev/cluster/databases';
import { DEFAULT_CLUSTER_DATABASE_URL, freeClusterPorts, startClusterStack } from '../src/dev/cluster/stack';
import type { Authorization } from '../src/providers/resources';
import { startSandbox } from '../src/sandbox/server';
import { writeWorkflowBundle } from '../src/workers/workflow-bundle';
import { lifecycleWorkflowId } from '../src/workflows/lifecycle/definitions';
import { BENCH_RATE_LIMIT } from './api-budgets';
import { updateTimeline } from './capture-timeline';
import { benchEncryption } from './codec';
import { rssOf } from './process-memory';
import { percentile, runBounded, summary, timed } from './stats';

// `npm run bench:scale`: lifecycles held open on the cluster topology (Temporal on PostgreSQL, two workers,
// two APIs) at 100, 1,000 and 10,000 open: start rate beside trivial workflows, capture latency of 200 chosen
// at random, worker memory and PostgreSQL bytes per lifecycle. Loopback only; bounded in count and time.

const SIZES = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const CAPTURES = Number(process.env.BENCH_CAPTURES ?? 200);
const OPEN_CONCURRENCY = Number(process.env.BENCH_OPEN_CONCURRENCY ?? 16);
const CAPTURE_CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const TRIVIAL_COUNT = Number(process.env.BENCH_TRIVIAL ?? 500);
const TIMELINE_SAMPLES = 40;
const TIME_LIMIT_MS = Number(process.env.BENCH_TIME_LIMIT_S ?? 1800) * 1000;
const DATABASE_PREFIX = 'temporal_bench_scale';
const TRIVIAL_QUEUE = 'bench-scale-trivial';
const API_KEY = 'bench-key';
const DATA_DIR = join(__dirname, '..', '.data', 'bench-scale');
const PROCESS_LOG = join(DATA_DIR, 'processes.log');
const encryption = benchEncryption();
const log = (line: string) => console.log(line);
const deadline = Date.now() + TIME_LIMIT_MS;

function withinTimeLimit(): void {
  if (Date.now() > deadline) throw new Error(`time limit of ${TIME_LIMIT_MS / 1000} s reached`);
}

interface Stage {
  open: number;
  startsPerSecond: number;
  trivialPerSecond: number;
  captureMs: number[];
  /** API answers in the stage (starts and captures) that were not 2xx: the goal is none. */
  non2xx: number;
  workers: Array<{ rssMb: number; peakMb: number }>;
  /** PostgreSQL's growth while the stage opened its lifecycles, per lifecycle opened. */
  bytesPerLifecycle: { history: number; visibility: number };
}

/** The bench's databases start empty each run, so what PostgreSQL holds is this run's alone. */
async function dropDatabases(databaseUrl: string): Promise<void> {
  const server = postgresServer(databaseUrl);
  const pg = new PgClient({ ...server, database: 'postgres' });
  await pg.connect();
  try {
    for (const name of Object.values(temporalDatabases(DATABASE_PREFIX)))
      await pg.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await pg.end();
  }
}

/** The bytes of the history database and of the visibility database. */
async function databaseBytes(databaseUrl: string): Promise<{ history: number; visibility: number }> {
  const pg = new PgClient({ ...postgresServer(databaseUrl), database: 'postgres' });
  await pg.connect();
  try {
    const { temporal, visibility } = temporalDatabases(DATABASE_PREFIX);
    const { rows } = await pg.query<{ history: string; visibility: string }>(
      'SELECT pg_database_size($1)::text AS history, pg_database_size($2)::text AS visibility',
      [temporal, visibility],
    );
    return { history: Number(rows[0]?.history ?? 0), visibility: Number(rows[0]?.visibility ?? 0) };
  } finally {
    await pg.end();
  }
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(PROCESS_LOG, '');
  const databaseUrl = process.env.CLUSTER_DATABASE_URL ?? DEFAULT_CLUSTER_DATABASE_URL;
  log(
    `Scale benchmark: ${SIZES.join(', ')} lifecycles open, ${CAPTURES} captures at ${CAPTURE_CONCURRENCY} in ` +
      `flight, starts at ${OPEN_CONCURRENCY} in flight, time limit ${TIME_LIMIT_MS / 1000} s ` +
      `(process output in ${PROCESS_LOG})`,
  );
  await dropDatabases(databaseUrl);
  const sandbox = await startSandbox({ port: 0, logger: false });
  const stack = await startClusterStack({
    config: loadConfig({}),
    ports: await freeClusterPorts(),
    dataDir: join(DATA_DIR, 'cluster'),
    databaseUrl,
    databasePrefix: DATABASE_PREFIX,
    ui: false,
    characters: false,
    paymentsBaseUrl: sandbox.url,
    appEnv: {
      API_KEYS: API_KEY,
      ...BENCH_RATE_LIMIT,
      ...encryption.env,
    },
    output: (name, line) => appendFileSync(PROCESS_LOG, `[${name}] ${line}\n`),
    progress: (line) => log(`  [cluster] ${line}`),
  });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, dataConverter: encryption.dataConverter });
  const trivialBundle = join(DATA_DIR, 'trivial-bundle.js');
  await writeWorkflowBundle(trivialBundle, require.resolve('./trivial-workflow'));
  const trivialConnection = await NativeConnection.connect({ address: stack.temporalAddress });
  const trivialWorker = await Worker.create({
    connection: trivialConnection,
    taskQueue: TRIVIAL_QUEUE,
    workflowBundle: { codePath: trivialBundle },
    dataConverter: encryption.dataConverter,
  });
  const trivialRunning = trivialWorker.run();

  const provider = axios.create({ baseURL: sandbox.url });
  const apis: AxiosInstance[] = stack.apiUrls.map((baseURL) =>
    axios.create({
      baseURL,
      headers: { authorization: `Bearer ${API_KEY}` },
      timeout: 60_000,
      validateStatus: () => true,
    }),
  );
  let non2xx = 0;
  /** Counts an API answer that is not 2xx; answers whether it was. */
  const answered = (response: { status: number }) => {
    const ok = response.status >= 200 && response.status < 300;
    if (!ok) non2xx += 1;
    return ok;
  };
  const api = (i: number) => apis[i % apis.length] as AxiosInstance;
  /** Open and not captured: the lifecycles a capture is chosen from. */
  const uncaptured: string[] = [];

  const openLifecycle = async (i: number) => {
    const created = await provider.post<Authorization>('/sandbox/authorizations', {
      amount: { currency_code: 'USD', value: '10.00' },
    });
    if (answered(await api(i).post('/v1/lifecycles', { authorizationId: created.data.id })))
      uncaptured.push(created.data.id);
  };

  const openUpTo = async (target: number) => {
    const count = target - uncaptured.length;
    let done = 0;
    const progress = setInterval(() => log(`    … ${done} of ${count} started`), 15_000);
    try {
      const { ms } = await timed(() =>
        runBounded(count, OPEN_CONCURRENCY, async (i) => {
          withinTimeLimit();
          await openLifecycle(i);
          done += 1;
        }),
      );
      return { count, perSecond: (count / ms) * 1000 };
    } finally {
      clearInterval(progress);
    }
  };

  const trivialRate = async (count: number) => {
    const { ms } = await timed(() =>
      runBounded(count, OPEN_CONCURRENCY, async (i) => {
        withinTimeLimit();
        await client.workflow.execute('trivialWorkflow', {
          taskQueue: TRIVIAL_QUEUE,
          workflowId: `trivial-${Date.now()}-${i}`,
        });
      }),
    );
    return (count / ms) * 1000;
  };

  /** Captures chosen at random; each is replaced by a new lifecycle, so as many stay open and uncaptured. */
  const captureAtRandom = async (count: number) => {
    const samples: number[] = [];
    const captured: string[] = [];
    await runBounded(count, CAPTURE_CONCURRENCY, async (i) => {
      withinTimeLimit();
      const index = Math.floor(Math.random() * uncaptured.length);
      const id = uncaptured[index] as string;
      uncaptured[index] = uncaptured[uncaptured.length - 1] as string;
      uncaptured.pop();
      const capture = await timed(() =>
        api(i).post(`/v1/lifecycles/${id}/capture`, {}, { headers: { 'idempotency-key': `scale-${id}` } }),
      );
      answered(capture.result);
      samples.push(capture.ms);
      captured.push(id);
      await openLifecycle(i);
    });
    return { samples, captured };
  };

  const workerMemory = () => [0, 1].map((index) => rssOf(stack.worker(index).child.pid as number));

  const stages: Stage[] = [];
  try {
    for (const size of SIZES) {
      log(`\n${size} open (load average ${loadavg()[0]?.toFixed(1)})`);
      non2xx = 0;
      const before = await databaseBytes(databaseUrl);
      const opened = await openUpTo(size);
      const after = await databaseBytes(databaseUrl);
      const per = (bytes: number) => bytes / Math.max(opened.count, 1);
      const bytesPerLifecycle = {
        history: per(after.history - before.history),
        visibility: per(after.visibility - before.visibility),
      };
      log(`  started ${opened.count} at ${opened.perSecond.toFixed(1)}/s`);
      const trivialPerSecond = await trivialRate(TRIVIAL_COUNT);
      log(`  trivial start → complete: ${trivialPerSecond.toFixed(1)}/s`);
      const { samples: captureMs, captured } = await captureAtRandom(CAPTURES);
      log(`  ${CAPTURES} captures: ${summary(captureMs)}`);
      log(`  where a capture's time goes (p50 of ${TIMELINE_SAMPLES} captures' histories, step by step):`);
      const sampled = captured.slice(0, TIMELINE_SAMPLES).map(lifecycleWorkflowId);
      for (const line of await updateTimeline(client, sampled)) log(`    ${line}`);
      log(`  non-2xx answers (starts and captures): ${non2xx} (goal 0)`);
      const workers = workerMemory();
      for (const [i, memory] of workers.entries())
        log(`  worker ${i + 1}: RSS ${memory.rssMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB`);
      stages.push({
        open: size,
        startsPerSecond: opened.perSecond,
        trivialPerSecond,
        captureMs,
        non2xx,
        workers,
        bytesPerLifecycle,
      });
      printTable(stages);
    }
  } finally {
    trivialWorker.shutdown();
    await trivialRunning;
    await trivialConnection.close();
    await connection.close();
    await stack.stop();
    await sandbox.close();
  }
}

function printTable(stages: Stage[]): void {
  const baseline = stages[0] as Stage;
  const p = (stage: Stage, q: number) => percentile(stage.captureMs, q);
  const rows: Array<[string, (stage: Stage) => string]> = [
    ['lifecycles started per second', (s) => s.startsPerSecond.toFixed(1)],
    ['trivial start → complete per second', (s) => s.trivialPerSecond.toFixed(1)],
    ['ratio lifecycles / trivial', (s) => `${(s.startsPerSecond / s.trivialPerSecond).toFixed(2)}x`],
    ['capture p50 / p95 / p99 ms', (s) => [50, 95, 99].map((q) => p(s, q).toFixed(0)).join(' / ')],
    [
      `capture p99 / p99 at ${baseline.open} open (<= 1.5x)`,
      (s) => `${(p(s, 99) / p(baseline, 99)).toFixed(2)}x`,
    ],
    ['non-2xx answers (goal 0)', (s) => String(s.non2xx)],
    [
      'worker RSS MB (peak), each (< 400)',
      (s) => s.workers.map((w) => `${w.rssMb.toFixed(0)} (${w.peakMb.toFixed(0)})`).join(', '),
    ],
    [
      'PostgreSQL bytes per lifecycle (history + visibility)',
      ({ bytesPerLifecycle: b }) =>
        `${(b.history + b.visibility).toFixed(0)} (${b.history.toFixed(0)} + ${b.visibility.toFixed(0)})`,
    ],
  ];
  log(`\n${'open lifecycles'.padEnd(56)}${stages.map((s) => String(s.open).padEnd(26)).join('')}`);
  for (const [label, value] of rows)
    log(`${label.padEnd(56)}${stages.map((s) => value(s).padEnd(26)).join('')}`);
  const [from, to] = [stages.at(-2), stages.at(-1)];
  if (stages.length >= 3 && from && to) {
    const growth = (a: number, b: number) => `${(b / a).toFixed(2)}x`;
    const peak = (s: Stage) => Math.max(...s.workers.map((w) => w.peakMb));
    const total = (s: Stage) => s.bytesPerLifecycle.history + s.bytesPerLifecycle.visibility;
    log(
      `\nGrowth from ${from.open} to ${to.open} open: start rate ${growth(from.startsPerSecond, to.startsPerSecond)}, ` +
        `capture p99 ${growth(p(from, 99), p(to, 99))}, worker peak RSS ${growth(peak(from), peak(to))}, ` +
        `bytes per lifecycle ${growth(total(from), total(to))}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
