import axios from 'axios';
import type { Client } from '@temporalio/client';
import { apiKeyHash } from '../../src/api-callers';
import { defaultApiLimits } from '../../src/api/limits';
import { buildApi } from '../../src/api/server';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { connectClient, uniqueTaskQueue } from '../helpers/temporal';

// The API listens on 127.0.0.1 and every request comes from 127.0.0.1: the load balancer, when it is trusted.
const ORDERS_KEY = 'orders-key-0123456789abcdef0123456789abcdef';
const BILLING_KEY = 'billing-key-0123456789abcdef0123456789abcdef';

let client: Client;
let closeClient: () => Promise<void>;
beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
});
afterAll(async () => {
  await closeClient();
});

async function startApi(trustProxy: string[], docs?: boolean) {
  const app = await buildApi({
    lifecycles: new LifecycleClient(client, uniqueTaskQueue('budgets')),
    callers: [
      { id: 'orders', scopes: ['lifecycles:read'], keyHashes: [apiKeyHash(ORDERS_KEY)] },
      { id: 'billing', scopes: ['lifecycles:read'], keyHashes: [apiKeyHash(BILLING_KEY)] },
    ],
    defaults: { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '3 days' },
    logger: false,
    limits: { ...defaultApiLimits, rateLimitMax: 3, callerRateLimitMax: 5, rateLimitWindowMs: 60_000 },
    trustProxy,
    ...(docs !== undefined && { docs }),
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const http = axios.create({ baseURL: url, validateStatus: () => true });
  /** The statuses of `count` requests to `path` with these headers, one after another. */
  const statuses = async (count: number, path: string, headers: Record<string, string>) => {
    const answers: number[] = [];
    for (let i = 0; i < count; i++) answers.push((await http.get(path, { headers })).status);
    return answers;
  };
  return { app, statuses };
}

describe('behind a trusted proxy (TRUST_PROXY=127.0.0.1)', () => {
  it('gives each client, by X-Forwarded-For, its own budget; a client cannot pick its address', async () => {
    const api = await startApi(['127.0.0.1']);
    try {
      const first = { 'x-forwarded-for': '203.0.113.10' };
      const second = { 'x-forwarded-for': '203.0.113.20' };
      expect(await api.statuses(4, '/health', first)).toEqual([200, 200, 200, 429]);
      expect(await api.statuses(3, '/health', second)).toEqual([200, 200, 200]);
      // The first client prepends an address of its own: the proxy appends the one it saw, which counts.
      expect(await api.statuses(1, '/health', { 'x-forwarded-for': '198.51.100.7, 203.0.113.10' })).toEqual([
        429,
      ]);
    } finally {
      await api.app.close();
    }
  });
});

describe('with no trusted proxy', () => {
  it('counts the socket’s address: a spoofed X-Forwarded-For changes nothing', async () => {
    const api = await startApi([]);
    try {
      const spoofed = ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4'];
      const answers: number[] = [];
      for (const address of spoofed) {
        answers.push(...(await api.statuses(1, '/health', { 'x-forwarded-for': address })));
      }
      expect(answers).toEqual([200, 200, 200, 429]);
    } finally {
      await api.app.close();
    }
  });
});

describe('authenticated requests', () => {
  it('spend their caller’s budget, whatever the address; an unknown key spends the address’s', async () => {
    const api = await startApi([]);
    try {
      const lifecycle = '/v1/lifecycles/AUTH-NOT-THERE';
      const orders = { authorization: `Bearer ${ORDERS_KEY}` };
      const billing = { authorization: `Bearer ${BILLING_KEY}` };
      // Five each from the same address, past the address's budget of three.
      expect(await api.statuses(6, lifecycle, orders)).toEqual([404, 404, 404, 404, 404, 429]);
      expect(await api.statuses(5, lifecycle, billing)).toEqual([404, 404, 404, 404, 404]);
      // Invented keys buy no fresh budget: each spends the address's three.
      const invented = [1, 2, 3, 4].map((n) => ({ authorization: `Bearer invented-${n}` }));
      const answers: number[] = [];
      for (const headers of invented) answers.push(...(await api.statuses(1, lifecycle, headers)));
      expect(answers).toEqual([401, 401, 401, 429]);
    } finally {
      await api.app.close();
    }
  });
});

describe('what the public port does not serve', () => {
  it('answers 404 for /metrics, with a key or without (they are on API_METRICS_PORT)', async () => {
    const api = await startApi([]);
    try {
      expect(await api.statuses(1, '/metrics', {})).toEqual([404]);
      expect(await api.statuses(1, '/metrics', { authorization: `Bearer ${ORDERS_KEY}` })).toEqual([404]);
    } finally {
      await api.app.close();
    }
  });

  it('serves /docs and /openapi.json unless turned off (production turns them off unless API_DOCS=true)', async () => {
    const served = await startApi([]);
    const off = await startApi([], false);
    try {
      expect(await served.statuses(1, '/openapi.json', {})).toEqual([200]);
      expect(await served.statuses(1, '/docs/', {})).toEqual([200]);
      expect(await off.statuses(1, '/openapi.json', {})).toEqual([404]);
      expect(await off.statuses(1, '/docs/', {})).toEqual([404]);
      expect(await off.statuses(1, '/docs', {})).toEqual([404]);
    } finally {
      await served.app.close();
      await off.app.close();
    }
  });
});
