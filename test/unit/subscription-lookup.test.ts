import type { PaymentsProvider } from '../../src/providers/port';
import { SUBSCRIPTION_MISS_CACHE_MS, subscriptionLookup } from '../../src/providers/subscription-lookup';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { sandboxProvider } from '../helpers/lifecycle-stack';

// The one subscription lookup, over the sandbox's real subscriptions API: how often it asks the provider.

const LISTENER = 'https://listener.example/webhooks/paypal';

let sandbox: Sandbox;
let provider: PaymentsProvider;
let asked = 0;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logger: false });
  const port = sandboxProvider(sandbox);
  const subscriptions = port.subscriptions!;
  provider = {
    ...port,
    subscriptions: {
      ...subscriptions,
      listWebhooks: (anchorType) => {
        asked += 1;
        return subscriptions.listWebhooks(anchorType);
      },
    },
  };
});
afterAll(async () => {
  await sandbox.close();
});

describe('the subscription lookup', () => {
  it('asks once for concurrent deliveries, keeps a miss a few seconds, then finds a new subscription', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'clearTimeout'] });
    try {
      const lookup = subscriptionLookup(provider, LISTENER);
      asked = 0;
      expect(await Promise.all([lookup(), lookup(), lookup()])).toEqual([undefined, undefined, undefined]);
      expect(asked).toBe(1);

      const created = await provider.subscriptions!.createWebhook({
        url: LISTENER,
        event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED' }],
      });
      expect(await lookup()).toBeUndefined();
      expect(asked).toBe(1);

      jest.advanceTimersByTime(SUBSCRIPTION_MISS_CACHE_MS + 1);
      expect(await lookup()).toBe(created.id);
      expect(await lookup()).toBe(created.id);
      expect(asked).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('asks nothing without a listener URL', async () => {
    asked = 0;
    expect(await subscriptionLookup(provider, undefined)()).toBeUndefined();
    expect(asked).toBe(0);
  });
});
