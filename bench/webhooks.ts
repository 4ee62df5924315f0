import { clearKeyCaller } from '../src/api-callers';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import axios from 'axios';
import { Client, Connection } from '@temporalio/client';
import { defaultApiLimits, type ApiLimits } from '../src/api/limits';
import { buildApi } from '../src/api/server';
import { LifecycleClient } from '../src/client/lifecycle-client';
import { runService, waitForLine } from '../src/dev/child-process';
import { startDevServer } from '../src/dev/dev-server';
import { findFreePort } from '../src/dev/ports';
import { resolveTemporalCli } from '../src/dev/temporal-cli';
import { specDialect } from '../src/providers/paypal/dialects';
import { paypalDeliveryIntake } from '../src/providers/registry';
import type { Authorization } from '../src/providers/resources';
import { signedDeliveryHeaders } from '../src/providers/paypal/webhook-signature';
import { certificateUrl, createSigningCertificate } from '../src/sandbox/paypal/certificate';
import { WEBHOOK_ROUTE } from '../src/webhooks/listener-url';
import { VerificationStarter } from '../src/webhooks/verification-starter';
import {
  webhookVerificationWorkflowId,
  type WebhookVerificationResult,
  type WebhookVerifyMode,
} from '../src/workflows/webhooks/definitions';
import { openApiLimits } from '../test/helpers/api-limits';
import { benchEncryption } from './codec';
import { percentile, runBounded, timed } from './stats';

// `npm run bench:webhooks`: signed deliveries POSTed to the API at increasing rates, each verified and
// signalled to a running lifecycle by the real worker process; beside it, how fast the same Temporal client
// starts a trivial workflow. Loopback only; every stage is bounded in count and time.

const RATES = (process.env.BENCH_RATES ?? '25,50,100,200').split(',').map(Number);
const STAGE_SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const ROUND_SIZE = Number(process.env.BENCH_ROUND_SIZE ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const MODE = (process.env.BENCH_VERIFY_MODE ?? 'api') as WebhookVerifyMode;
const LIFECYCLES = Number(process.env.BENCH_LIFECYCLES ?? 20);
const GENUINE_RATE = Number(process.env.BENCH_GENUINE_RATE ?? 5);
const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 20);
const FLOOD_PER_MINUTE = Number(process.env.BENCH_FLOOD_PER_MINUTE ?? 10_000);
const SETTLE_MS = 120_000;
const WEBHOOK_ID = 'WH-BENCH';
const TASK_QUEUE = 'bench-webhooks';

/**
 * Junk deliveries (garbled signature headers) to `url` from 127.0.0.2, `rate` a second for `seconds`: the
 * status of each answer.
 */
async function flood(url: string, rate: number, seconds: number): Promise<number[]> {
  const junk = axios.create({
    baseURL: url,
    validateStatus: () => true,
    httpAgent: new http.Agent({ keepAlive: true, localAddress: '127.0.0.2' }),
  });
  const count = Math.round(rate * seconds);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, (i / rate) * 1000));
      const answer = await junk.post(WEBHOOK_ROUTE, JSON.stringify({ id: `junk-${randomUUID()}` }), {
        headers: { 'content-type': 'application/json', 'paypal-transmission-sig': 'garbled' },
      });
      return answer.status;
    }),
  );
}

async function main() {
  const cli = await resolveTemporalCli();
  const server = await startDevServer({
    cliPath: cli.path,
    port: await findFreePort(),
    namespace: 'default',
  });
  const signing = await createSigningCertificate(new Date());
  const providerPort = await findFreePort();
  const provider = runService('provider', 'bench/provider.ts', {
    BENCH_SIGNING_CERTIFICATE: JSON.stringify(signing),
    BENCH_PROVIDER_PORT: String(providerPort),
  });
  await waitForLine(provider, 'provider ready');
  const providerUrl = `http://127.0.0.1:${providerPort}`;
  const providerCertificateUrl = certificateUrl(providerUrl, signing.id);
  const connection = await Connection.connect({ address: server.address });
  const encryption = benchEncryption();
  const client = new Client({ connection, dataConverter: encryption.dataConverter });
  const lifecycles = new LifecycleClient(client, TASK_QUEUE);
  /** The API with its webhook intake; `limits` are its budgets. */
  const startListener = async (limits: ApiLimits) => {
    const app = await buildApi({
      lifecycles,
      callers: [clearKeyCaller(['bench-key'])],
      defaults: { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '3 days' },
      logger: false,
      limits,
      webhooks: {
        bodyLimitBytes: 1_048_576,
        intakes: [
          {
            delivery: paypalDeliveryIntake({
              headerNames: specDialect.transmissionHeaders,
              toleranceMs: 600_000,
              aliasPaths: [WEBHOOK_ROUTE],
            }),
            verifications: new VerificationStarter({
              client,
              taskQueue: TASK_QUEUE,
              mode: MODE,
              webhookId: WEBHOOK_ID,
              provider: 'paypal',
            }),
          },
        ],
      },
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { app, url, http: axios.create({ baseURL: url, validateStatus: () => true }) };
  };
  const unlimited = await startListener(openApiLimits);
  const listener = unlimited.http;
  const workerEnv = {
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    PAYPAL_BASE_URL: providerUrl,
    WORKER_METRICS_PORT: String(await findFreePort()),
    ...encryption.env,
  };
  const startWorker = async () => {
    const service = runService('worker', 'src/workers/main.ts', workerEnv);
    await waitForLine(service, 'worker polling');
    return service;
  };
  let worker = await startWorker();

  // The lifecycles the events concern; PAYMENT.AUTHORIZATION.CREATED is recorded by them, changes nothing.
  const authorizationIds: string[] = [];
  for (let i = 0; i < LIFECYCLES; i += 1) {
    const created = await axios.post<Authorization>(`${providerUrl}/sandbox/authorizations`, {
      amount: { currency_code: 'USD', value: '10.00' },
    });
    await lifecycles.start({ authorizationId: created.data.id });
    authorizationIds.push(created.data.id);
  }

  /** A signed delivery, as the provider would send it; signing is the provider's work, done before timing. */
  const signDelivery = (i: number) => {
    const authorizationId = authorizationIds[i % LIFECYCLES] as string;
    const body = JSON.stringify({
      id: `WH-${randomUUID()}`,
      event_version: '1.0',
      create_time: new Date().toISOString(),
      resource_type: 'authorization',
      event_type: 'PAYMENT.AUTHORIZATION.CREATED',
      resource: { id: authorizationId, status: 'CREATED', amount: { currency_code: 'USD', value: '10.00' } },
    });
    const transmissionId = randomUUID();
    const headers = {
      'content-type': 'application/json',
      ...signedDeliveryHeaders({
        transmissionId,
        transmissionTime: new Date().toISOString(),
        webhookId: WEBHOOK_ID,
        body,
        certUrl: providerCertificateUrl,
        privateKeyPem: signing.privateKeyPem,
      }),
    };
    return { transmissionId, body, headers };
  };
  const post = async (delivery: ReturnType<typeof signDelivery>, to = listener) => {
    const response = await to.post(WEBHOOK_ROUTE, delivery.body, {
      headers: delivery.headers,
      transformRequest: (data: unknown) => data,
    });
    return { status: response.status, transmissionId: delivery.transmissionId };
  };
  const deliver = (i: number) => post(signDelivery(i));

  /** Waits (bounded) for every accepted delivery's run; lost = accepted but not delivered to its lifecycle. */
  const settle = async (transmissionIds: string[]) => {
    const latencies: number[] = [];
    let lost = 0;
    const deadline = Date.now() + SETTLE_MS;
    await runBounded(transmissionIds.length, 64, async (i) => {
      const handle = client.workflow.getHandle(webhookVerificationWorkflowId(transmissionIds[i] as string));
      const result = (await Promise.race([
        handle.result(),
        new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()))),
      ]).catch(() => undefined)) as WebhookVerificationResult | undefined;
      if (result?.outcome !== 'delivered') lost += 1;
      else latencies.push(Date.parse(result.signalledAt) - Date.parse(result.receivedAt));
    });
    return { latencies, lost };
  };

  const report = (
    label: string,
    sent: number,
    accepted: string[],
    ms: number,
    settled: Awaited<ReturnType<typeof settle>>,
  ) => {
    const f = (p: number) => percentile(settled.latencies, p).toFixed(0).padStart(5);
    console.log(
      `  ${label.padEnd(22)} sent ${String(sent).padStart(5)}  accepted ${String(accepted.length).padStart(5)} ` +
        `(${((accepted.length / ms) * 1000).toFixed(1).padStart(6)}/s)  receipt→signal p50 ${f(50)} ms p99 ${f(99)} ms  lost ${settled.lost}`,
    );
    return (accepted.length / ms) * 1000;
  };

  const startTrivial = async () => {
    await client.workflow.start('benchTrivial', {
      taskQueue: 'bench-trivial-unpolled',
      workflowId: randomUUID(),
    });
  };

  console.log(
    `Webhook benchmark: dev server ${server.address}, verify mode ${MODE}, ${LIFECYCLES} lifecycles`,
  );
  await runBounded(20, 4, async (i) => void (await deliver(i))); // warm-up
  await runBounded(100, CONCURRENCY, startTrivial);
  let lostTotal = 0;

  /** `rate` deliveries a second for `seconds` to `to`: the ones accepted and the time taken. */
  const paced = async (rate: number, seconds: number, to = listener) => {
    const count = Math.round(rate * seconds);
    const accepted: string[] = [];
    const { ms } = await timed(() =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, (i / rate) * 1000));
          const { status, transmissionId } = await post(signDelivery(i), to);
          if (status === 202) accepted.push(transmissionId);
        }),
      ),
    );
    return { count, accepted, ms };
  };

  console.log(`\nPaced stages, ${STAGE_SECONDS} s each:`);
  for (const rate of RATES) {
    const { count, accepted, ms } = await paced(rate, STAGE_SECONDS);
    const settled = await settle(accepted);
    lostTotal += settled.lost;
    report(`${rate}/s offered`, count, accepted, ms, settled);
  }

  // Genuine deliveries quiet, then while one other address floods the intake with junk no provider signed,
  // on an API with the default budgets: the junk spends its own source's budget, not the provider's.
  const budgeted = await startListener(defaultApiLimits);
  console.log(
    `\nGenuine deliveries at ${GENUINE_RATE}/s for ${FLOOD_SECONDS} s from 127.0.0.1, default budgets, ` +
      `quiet and under a flood of ${FLOOD_PER_MINUTE} junk deliveries a minute from 127.0.0.2:`,
  );
  const genuine = async (label: string) => {
    const { count, accepted, ms } = await paced(GENUINE_RATE, FLOOD_SECONDS, budgeted.http);
    const settled = await settle(accepted);
    lostTotal += settled.lost + (count - accepted.length);
    report(label, count, accepted, ms, settled);
    return percentile(settled.latencies, 99);
  };
  const quietP99 = await genuine('quiet');
  const junk = flood(budgeted.url, FLOOD_PER_MINUTE / 60, FLOOD_SECONDS);
  const floodP99 = await genuine('under the flood');
  const junkStatuses = await junk;
  const answered = (status: number) => junkStatuses.filter((s) => s === status).length;
  console.log(
    `  junk: ${junkStatuses.length} sent, ${answered(400)} answered 400, ${answered(429)} answered 429, ` +
      `${junkStatuses.length - answered(400) - answered(429)} otherwise`,
  );
  console.log(
    `  delivery → lifecycle p99 under the flood / quiet: ${(floodP99 / quietP99).toFixed(2)}x (target <= 1.5x)`,
  );
  await budgeted.app.close();

  /**
   * Deliveries and trivial starts in alternating rounds (order swapped every round), so both meet the same
   * load: whatever the worker and the server are doing meanwhile slows both alike.
   */
  const alternate = async () => {
    const accepted: string[] = [];
    const deliveryMs: number[] = [];
    const trivialMs: number[] = [];
    const deliveries = async () => {
      const signed = Array.from({ length: ROUND_SIZE }, (_, i) => signDelivery(i));
      const { ms } = await timed(() =>
        runBounded(ROUND_SIZE, CONCURRENCY, async (i) => {
          const { status, transmissionId } = await post(signed[i] as (typeof signed)[number]);
          if (status === 202) accepted.push(transmissionId);
        }),
      );
      deliveryMs.push(ms);
    };
    const trivial = async () => {
      trivialMs.push((await timed(() => runBounded(ROUND_SIZE, CONCURRENCY, startTrivial))).ms);
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const work of round % 2 === 0 ? [deliveries, trivial] : [trivial, deliveries]) await work();
    }
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    // A round's ratio compares two neighbours in time; their median shrugs off a round the VM stalled in.
    const roundRatios = trivialMs.map((ms, round) => ms / (deliveryMs[round] as number));
    return {
      accepted,
      deliveryMs: sum(deliveryMs),
      trivialRate: ((ROUNDS * ROUND_SIZE) / sum(trivialMs)) * 1000,
      medianRoundRatio: percentile(roundRatios, 50),
    };
  };
  const compare = async (label: string, beforeSettling = async () => {}) => {
    const run = await alternate();
    await beforeSettling();
    const settled = await settle(run.accepted);
    lostTotal += settled.lost;
    const deliveryRate = report(label, ROUNDS * ROUND_SIZE, run.accepted, run.deliveryMs, settled);
    console.log(
      `  ${''.padEnd(22)} trivial workflow starts in the same rounds: ${run.trivialRate.toFixed(1)}/s`,
    );
    return `${(deliveryRate / run.trivialRate).toFixed(2)}x overall, median of rounds ${run.medianRoundRatio.toFixed(2)}x`;
  };

  console.log(
    `\nSaturation: ${ROUNDS} rounds of ${ROUND_SIZE} deliveries and ${ROUND_SIZE} trivial starts, alternating, ${CONCURRENCY} in flight:`,
  );
  const busyRatio = await compare('worker verifying');
  // The same with no worker: the receiving path alone. Those runs wait in Temporal and are verified once
  // the worker is back; their latency includes that wait.
  await worker.stop();
  const quietRatio = await compare('worker stopped', async () => {
    worker = await startWorker();
  });
  console.log(`  ratio, worker verifying meanwhile: ${busyRatio} (target >= 0.8x)`);
  console.log(`  ratio, receiving path alone:       ${quietRatio} (target >= 0.8x)`);
  console.log(`  lost in all stages: ${lostTotal} (must be 0)`);

  await worker.stop();
  await unlimited.app.close();
  await connection.close();
  await provider.stop();
  await server.stop();
  if (lostTotal > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
