import type { Client } from '@temporalio/client';
import type { DeliveryIntake } from '../../src/providers/port';
import type { ProviderName } from '../../src/provider-names';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { specDialect } from '../../src/providers/paypal/dialects';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { webhookVerificationWorkflowId } from '../../src/workflows/webhooks/definitions';
import { startTestApi } from '../helpers/lifecycle-stack';
import { connectClient, uniqueTaskQueue } from '../helpers/temporal';
import { bothWebhooks, paypalWebhooks } from '../helpers/webhook-intakes';

// The one intake serves every registered provider at POST /webhooks/<provider>: a test-only provider, "acme",
// registered beside PayPal, has its deliveries received with no change to the API. No worker polls the
// queue: the test looks only at what the intake answers and starts.

const acmeIntake: DeliveryIntake = {
  provider: 'acme',
  headerNames: ['Acme-Delivery-Id', 'Acme-Signature'],
  async screen(delivery) {
    if (delivery.headers['Acme-Signature'] !== 'signed-by-acme')
      return { refused: 'Acme-Signature: not acme' };
    return { id: `acme-${delivery.headers['Acme-Delivery-Id'] as string}` };
  },
};

let client: Client;
let closeClient: () => Promise<void>;
beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
});
afterAll(async () => {
  await closeClient();
});

describe('the one webhook intake', () => {
  it("receives a test-only provider's deliveries at /webhooks/acme, beside PayPal's", async () => {
    const taskQueue = uniqueTaskQueue('acme-intake');
    const api = await startTestApi({
      lifecycles: new LifecycleClient(client, taskQueue),
      webhooks: bothWebhooks(
        paypalWebhooks(
          new VerificationStarter({ client, taskQueue, mode: 'api', provider: 'paypal' }),
          specDialect.transmissionHeaders,
        ),
        {
          bodyLimitBytes: 64 * 1024,
          intakes: [
            {
              delivery: acmeIntake,
              // The run names a provider no worker here knows: nothing polls this queue.
              verifications: new VerificationStarter({
                client,
                taskQueue,
                mode: 'local',
                provider: 'acme' as ProviderName,
              }),
            },
          ],
        },
      ),
    });
    const post = (path: string, headers: Record<string, string>) =>
      api.http.post(path, '{"id":"acme-event"}', {
        headers: { 'content-type': 'application/json', authorization: undefined, ...headers },
      });
    try {
      const deliveryId = `d${Date.now()}`;
      const signed = { 'Acme-Delivery-Id': deliveryId, 'Acme-Signature': 'signed-by-acme' };
      const accepted = await post('/webhooks/acme', signed);
      expect([accepted.status, accepted.data]).toEqual([
        202,
        { workflowId: webhookVerificationWorkflowId(`acme-${deliveryId}`), status: 'accepted' },
      ]);
      const run = await client.workflow.getHandle(accepted.data.workflowId as string).describe();
      expect(run.taskQueue).toBe(taskQueue);

      const missing = await post('/webhooks/acme', { 'Acme-Delivery-Id': deliveryId });
      expect([missing.status, missing.data.error.message]).toEqual([
        400,
        'missing delivery headers: Acme-Signature',
      ]);
      const forged = await post('/webhooks/acme', { ...signed, 'Acme-Signature': 'someone' });
      expect([forged.status, forged.data.error.message]).toEqual([400, 'Acme-Signature: not acme']);
      // PayPal's, at its path and its alias, asks PayPal's headers; an unregistered provider has no intake.
      for (const path of ['/webhooks/paypal', '/webhooks/payments']) {
        const paypal = await post(path, signed);
        expect(paypal.status).toBe(400);
        expect(paypal.data.error.message).toMatch(/^missing delivery headers: SERVICE-/);
      }
      expect((await post('/webhooks/globex', signed)).status).toBe(404);
    } finally {
      await api.app.close();
    }
  });
});
