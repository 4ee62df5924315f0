import { randomUUID } from 'node:crypto';
import { createPaymentsWorkerActivities } from '../../src/activities';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ApiLimits } from '../../src/api/limits';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import type { PayPalClient } from '../../src/providers/paypal/client';
import type { PaymentsProvider } from '../../src/providers/port';
import { paymentsDialect, type PaymentsDialectName } from '../../src/providers/paypal/dialects';
import type { Authorization } from '../../src/providers/paypal/schemas';
import type { WebhookDelivery } from '../../src/providers/webhook-delivery';
import { signedDeliveryHeaders } from '../../src/providers/paypal/webhook-signature';
import { createSigningCertificate, type SigningCertificate } from '../../src/sandbox/paypal/certificate';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { ensureSubscription } from '../../src/webhooks/ensure-subscription';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { lifecycleWorkflowId, type LifecycleState } from '../../src/workflows/lifecycle/definitions';
import {
  WEBHOOK_DELIVERY_REJECTED,
  webhookVerificationWorkflowId,
  type WebhookVerificationResult,
  type WebhookVerifyMode,
} from '../../src/workflows/webhooks/definitions';
import {
  createSandboxAuthorization,
  sandboxPaymentsClient,
  sandboxProvider,
  startTestApi,
} from './lifecycle-stack';
import { connectClient, createTestWorker, uniqueTaskQueue } from './temporal';
import { paypalWebhooks } from './webhook-intakes';

export const BODY_LIMIT_BYTES = 64 * 1024;

/** The body of a PAYMENT.AUTHORIZATION.VOIDED delivery for `authorizationId`, as the provider sends it. */
export const voidedEvent = (authorizationId: string, eventId = `WH-${randomUUID()}`) =>
  JSON.stringify({
    id: eventId,
    event_version: '1.0',
    create_time: '2026-05-01T12:00:00Z',
    resource_type: 'authorization',
    event_type: 'PAYMENT.AUTHORIZATION.VOIDED',
    summary: 'A payment authorization was voided',
    resource: { id: authorizationId, status: 'VOIDED', amount: { currency_code: 'USD', value: '10.00' } },
  });

/** A delivery signed as the sandbox signs, with its transmission id; each header has one value. */
export interface SignedDelivery extends WebhookDelivery<string> {
  transmissionId: string;
  headers: Record<string, string>;
}

/**
 * Webhooks' real parts for one test file: the sandbox (signing with a key the test knows), a worker with the
 * payments and webhook activities, and two APIs on free ports: `api` verifies through the provider and finds
 * the webhook id from the subscription of its listener URL, `localApi` verifies locally with a configured id.
 */
export interface WebhookStack {
  sandbox: Sandbox;
  signing: SigningCertificate;
  client: Client;
  taskQueue: string;
  payments: PayPalClient;
  /** The sandbox behind the provider port, as the stack's worker takes it. */
  port: PaymentsProvider;
  /** The subscription the stack ensured for `listenerUrl` at start. */
  webhookId: string;
  listenerUrl: string;
  api: AxiosInstance;
  localApi: AxiosInstance;
  provider: AxiosInstance;
  createAuthorization(value: string, extra?: Record<string, unknown>): Promise<Authorization>;
  /**
   * One more API that verifies in `mode` (through the provider by default), starting its verification runs on
   * `taskQueue` (the stack's by default), with `limits` when given. The caller closes it.
   */
  startApi(options?: {
    taskQueue?: string;
    limits?: ApiLimits;
    mode?: WebhookVerifyMode;
  }): ReturnType<typeof startTestApi>;
  /** Starts a lifecycle through the API; answers the authorization id. */
  startLifecycle(value?: string, extra?: Record<string, unknown>): Promise<string>;
  /** The lifecycle's state as the API answers it (GET /v1/lifecycles/:authorizationId). */
  lifecycleState(authorizationId: string): Promise<LifecycleState>;
  /** A delivery signed as the sandbox signs, for `body` exactly as given. */
  sign(
    body: string,
    options?: { webhookId?: string; certUrl?: string; transmissionId?: string; transmissionTime?: Date },
  ): SignedDelivery;
  deliver(delivery: SignedDelivery, mode?: WebhookVerifyMode): Promise<AxiosResponse>;
  verification(transmissionId: string): Promise<WebhookVerificationResult>;
  /** Whether the transmission has a verification run: false when the listener refused it before starting one. */
  verificationExists(transmissionId: string): Promise<boolean>;
  /** How many signals the lifecycle of the authorization has received. */
  signalsTo(authorizationId: string): Promise<number>;
  close(): Promise<void>;
}

/** `mode` is the sandbox's, and the client and the listener speak the same dialect. */
export async function startWebhookStack(options: { mode?: PaymentsDialectName } = {}): Promise<WebhookStack> {
  const dialect = paymentsDialect(options.mode);
  const signing = await createSigningCertificate(new Date());
  const sandbox = await startSandbox({
    port: 0,
    mode: dialect.name,
    logger: false,
    signingCertificate: signing,
    deliveryRetry: { attempts: 5, initialDelayMs: 200 },
  });
  const payments = sandboxPaymentsClient(sandbox, undefined, dialect.name);
  const port = sandboxProvider(sandbox, undefined, dialect.name, [new URL(sandbox.url).origin]);
  const taskQueue = uniqueTaskQueue('webhooks');
  const { client, close: closeClient } = await connectClient();
  const lifecycles = new LifecycleClient(client, taskQueue);

  const apiFor = (
    mode: WebhookVerifyMode,
    webhookId?: string,
    verificationQueue = taskQueue,
    limits?: ApiLimits,
  ) =>
    startTestApi({
      lifecycles,
      // As src/api/main.ts builds it: the sandbox's certificate host; in local mode, the signature too.
      webhooks: paypalWebhooks(
        new VerificationStarter({
          client,
          taskQueue: verificationQueue,
          mode,
          webhookId,
          provider: 'paypal',
        }),
        port.deliveryHeaders,
        {
          bodyLimitBytes: BODY_LIMIT_BYTES,
          certificateHosts: [new URL(sandbox.url).origin],
          ...(mode === 'local' &&
            webhookId && { local: { provider: port, webhookId: async () => webhookId } }),
        },
      ),
      ...(limits && { limits }),
    });
  const apiMode = await apiFor('api');
  const listenerUrl = `${apiMode.url}${WEBHOOK_ROUTE}`;

  const { worker, close: closeWorker } = await createTestWorker({
    taskQueue,
    activities: createPaymentsWorkerActivities({ provider: port, webhooks: { listenerUrl } }),
  });
  const workerDone = worker.run();

  const subscription = await ensureSubscription(client, taskQueue, { listenerUrl });
  const localMode = await apiFor('local', subscription.webhookId);
  const provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });

  const createAuthorization = (value: string, extra?: Record<string, unknown>) =>
    createSandboxAuthorization(provider, value, extra);

  return {
    sandbox,
    signing,
    client,
    taskQueue,
    payments,
    port,
    webhookId: subscription.webhookId,
    listenerUrl,
    api: apiMode.http,
    localApi: localMode.http,
    provider,
    createAuthorization,
    startApi: ({ taskQueue: verificationQueue, limits, mode = 'api' } = {}) =>
      apiFor(mode, subscription.webhookId, verificationQueue, limits),
    async startLifecycle(value = '100.00', extra = {}) {
      const authorization = await createAuthorization(value, extra);
      const response = await apiMode.http.post('/v1/lifecycles', { authorizationId: authorization.id });
      if (response.status !== 201) throw new Error(`lifecycle not started: ${JSON.stringify(response.data)}`);
      return authorization.id;
    },
    async lifecycleState(authorizationId) {
      return (await apiMode.http.get(`/v1/lifecycles/${authorizationId}`)).data as LifecycleState;
    },
    sign(body, options = {}) {
      const transmissionId = options.transmissionId ?? randomUUID();
      const transmissionTime = (options.transmissionTime ?? new Date()).toISOString();
      const webhookId = options.webhookId ?? subscription.webhookId;
      const certUrl = options.certUrl ?? sandbox.certificateUrl;
      return {
        transmissionId,
        body,
        headers: {
          'content-type': 'application/json',
          ...signedDeliveryHeaders({
            transmissionId,
            transmissionTime,
            webhookId,
            body,
            certUrl,
            privateKeyPem: signing.privateKeyPem,
            headerNames: dialect.transmissionHeaders,
          }),
        },
      };
    },
    deliver(delivery, mode = 'api') {
      const http = mode === 'api' ? apiMode.http : localMode.http;
      // The body goes out as the exact bytes given; axios would otherwise re-serialize a parsed value.
      return http.post(WEBHOOK_ROUTE, Buffer.from(delivery.body, 'utf8'), {
        headers: { ...delivery.headers, authorization: undefined },
        transformRequest: (data: unknown) => data,
      });
    },
    verification(transmissionId) {
      return verificationResult(client, transmissionId);
    },
    async verificationExists(transmissionId) {
      try {
        await client.workflow.getHandle(webhookVerificationWorkflowId(transmissionId)).describe();
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },
    async signalsTo(authorizationId) {
      const history = await client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).fetchHistory();
      return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
    },
    async close() {
      worker.shutdown();
      await workerDone;
      await closeWorker();
      await apiMode.app.close();
      await localMode.app.close();
      await closeClient();
      await sandbox.close();
    },
  };
}

/** The run's result; a rejected delivery fails its run, with the rejected result as the failure's details. */
export async function verificationResult(
  client: Client,
  transmissionId: string,
): Promise<WebhookVerificationResult> {
  try {
    return await client.workflow.getHandle(webhookVerificationWorkflowId(transmissionId)).result();
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === WEBHOOK_DELIVERY_REJECTED) {
      return cause.details?.[0] as WebhookVerificationResult;
    }
    throw error;
  }
}

/** The verification result of the sandbox's delivery of `eventType` whose resource is the refund `refundId`. */
export async function deliveredRefundEvent(
  stack: WebhookStack,
  eventType: string,
  refundId: string,
): Promise<WebhookVerificationResult> {
  await stack.sandbox.deliveriesSettled();
  const records = stack.sandbox
    .deliveries()
    .filter((record) => record.eventType === eventType && record.webhookId === stack.webhookId);
  for (const record of records) {
    const result = await stack.verification(record.transmissionId);
    if (result.outcome === 'delivered' && result.event.refundId === refundId) return result;
  }
  throw new Error(`no delivered ${eventType} for refund ${refundId}`);
}
