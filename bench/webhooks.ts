import { randomUUID } from 'node:crypto';
import axios from 'axios';
import { Client, Connection } from '@temporalio/client';
import { buildApi } from '../src/api/server';
import { LifecycleClient } from '../src/client/lifecycle-client';
import { runService, waitForLine } from '../src/dev/child-process';
import { startDevServer } from '../src/dev/dev-server';
import { findFreePort } from '../src/dev/ports';
import { resolveTemporalCli } from '../src/dev/temporal-cli';
import { specDialect } from '../src/payments/dialects';
import type { Authorization } from '../src/payments/schemas';
import { signedDeliveryHeaders } from '../src/payments/webhook-signature';
import { createSigningCertificate } from '../src/sandbox/certificate';
import { startSandbox } from '../src/sandbox/server';
import { WEBHOOK_ROUTE } from '../src/webhooks/listener-url';
import { VerificationStarter } from '../src/webhooks/verification-starter';
import {
  webhookVerificationWorkflowId,
  type WebhookVerificationResult,
  type WebhookVerifyMode,
} from '../src/workflows/webhooks/definitions';
import { percentile, runBounded, timed } from './stats';

// `npm run bench:webhooks`: signed deliveries POSTed to the API at increasing rates, each verified and
// signalled to a running lifecycle by the real worker process; beside it, how fast the same Temporal client
// starts a trivial workflow. Loopback only; every stage is bounded in count and time.

const RATES = (process.env.BENCH_RATES ?? '25,50,100,200').split(',').map(Number);
const STAGE_SECONDS = Number(process.env.BENCH_STAGE_SECONDS ?? 4);
const SATURATION_COUNT = Number(process.env.BENCH_SATURATION_COUNT ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const MODE = (process.env.BENCH_VERIFY_MODE ?? 'api') as WebhookVerifyMode;
const LIFECYCLES = 20;
const SETTLE_MS = 120_000;
const WEBHOOK_ID = 'WH-BENCH';
const TASK_QUEUE = 'bench-webhooks';

async function main() {
  const cli = await resolveTemporalCli();
  const server = await startDevServer({
    cliPath: cli.path,
    port: await findFreePort(),
    namespace: 'default',
  });
  const signing = await createSigningCertificate(new Date());
  const sandbox = await startSandbox({ port: 0, logger: false, signingCertificate: signing });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const lifecycles = new LifecycleClient(client, TASK_QUEUE);
  const app = await buildApi({
    lifecycles,
    apiKeys: ['bench-key'],
    defaults: { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '3 days' },
    logger: false,
    webhooks: {
      verifications: new VerificationStarter({
        client,
        taskQueue: TASK_QUEUE,
        mode: MODE,
        webhookId: WEBHOOK_ID,
      }),
      bodyLimitBytes: 1_048_576,
      headerNames: specDialect.transmissionHeaders,
    },
  });
  const listener = axios.create({
    baseURL: await app.listen({ port: 0, host: '127.0.0.1' }),
    validateStatus: () => true,
  });
  const workerEnv = {
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    PAYMENTS_BASE_URL: sandbox.url,
    WORKER_METRICS_PORT: String(await findFreePort()),
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
    const created = await axios.post<Authorization>(`${sandbox.url}/sandbox/authorizations`, {
      amount: { currency_code: 'USD', value: '10.00' },
    });
    await lifecycles.start({ authorizationId: created.data.id });
    authorizationIds.push(created.data.id);
  }

  const deliver = async (i: number): Promise<{ status: number; transmissionId: string }> => {
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
    const transmissionTime = new Date().toISOString();
    const response = await listener.post(WEBHOOK_ROUTE, body, {
      headers: {
        'content-type': 'application/json',
        ...signedDeliveryHeaders({
          transmissionId,
          transmissionTime,
          webhookId: WEBHOOK_ID,
          body,
          certUrl: sandbox.certificateUrl,
          privateKeyPem: signing.privateKeyPem,
        }),
      },
      transformRequest: (data: unknown) => data,
    });
    return { status: response.status, transmissionId };
  };

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

  const trivialStarts = async (count: number) => {
    const { ms } = await timed(() =>
      runBounded(count, CONCURRENCY, async () => {
        await client.workflow.start('benchTrivial', {
          taskQueue: 'bench-trivial-unpolled',
          workflowId: randomUUID(),
        });
      }),
    );
    return (count / ms) * 1000;
  };

  console.log(
    `Webhook benchmark: dev server ${server.address}, verify mode ${MODE}, ${LIFECYCLES} lifecycles`,
  );
  await runBounded(20, 4, async (i) => void (await deliver(i))); // warm-up
  await trivialStarts(100);
  let lostTotal = 0;

  console.log(`\nPaced stages, ${STAGE_SECONDS} s each:`);
  for (const rate of RATES) {
    const count = Math.round(rate * STAGE_SECONDS);
    const accepted: string[] = [];
    const { ms } = await timed(() =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, (i / rate) * 1000));
          const { status, transmissionId } = await deliver(i);
          if (status === 202) accepted.push(transmissionId);
        }),
      ),
    );
    const settled = await settle(accepted);
    lostTotal += settled.lost;
    report(`${rate}/s offered`, count, accepted, ms, settled);
  }

  const burst = async (label: string) => {
    const accepted: string[] = [];
    const { ms } = await timed(() =>
      runBounded(SATURATION_COUNT, CONCURRENCY, async (i) => {
        const { status, transmissionId } = await deliver(i);
        if (status === 202) accepted.push(transmissionId);
      }),
    );
    return { label, accepted, ms };
  };
  const trivialBefore = await trivialStarts(SATURATION_COUNT);
  console.log(`\nBursts of ${SATURATION_COUNT} deliveries, ${CONCURRENCY} in flight:`);
  const busy = await burst('worker verifying');
  const busySettled = await settle(busy.accepted);
  lostTotal += busySettled.lost;
  const busyRate = report(busy.label, SATURATION_COUNT, busy.accepted, busy.ms, busySettled);

  // The same burst while no worker runs: what the receiving path alone costs over a bare start. The runs
  // wait in Temporal and are verified once the worker is back; their latency includes that wait.
  await worker.stop();
  const quiet = await burst('worker stopped');
  worker = await startWorker();
  const quietSettled = await settle(quiet.accepted);
  lostTotal += quietSettled.lost;
  const quietRate = report(quiet.label, SATURATION_COUNT, quiet.accepted, quiet.ms, quietSettled);

  const trivialAfter = await trivialStarts(SATURATION_COUNT);
  const trivial = (trivialBefore + trivialAfter) / 2;
  console.log(
    `  trivial workflow starts, same client, ${CONCURRENCY} in flight: ${trivial.toFixed(1)}/s (before ${trivialBefore.toFixed(1)}, after ${trivialAfter.toFixed(1)})`,
  );
  console.log(`  ratio, worker verifying meanwhile: ${(busyRate / trivial).toFixed(2)}x (target >= 0.8x)`);
  console.log(`  ratio, receiving path alone:       ${(quietRate / trivial).toFixed(2)}x (target >= 0.8x)`);
  console.log(`  lost in all stages: ${lostTotal} (must be 0)`);

  await worker.stop();
  await app.close();
  await connection.close();
  await sandbox.close();
  await server.stop();
  if (lostTotal > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
