import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpointKeysFromConfig } from '../../src/codec/endpoint-keys';
import { loadConfig } from '../../src/config';
import { authorizedCaller, callerNamespace, paymentsOperations } from '../../src/nexus/callers';
import { nexusCallerSettings } from '../../src/nexus/handler-config';
import { nexusCallersFromConfig } from '../../src/nexus-callers';

const key = () => `k${randomBytes(2).toString('hex')}:${randomBytes(32).toString('base64')}`;

/** What the server sends: one link to the caller's NexusOperationScheduled event. */
function scheduledBy(...namespaces: string[]) {
  return {
    inboundLinks: namespaces.map((namespace) => ({
      type: 'temporal.api.common.v1.Link.WorkflowEvent',
      url: new URL(
        `temporal:///namespaces/${encodeURIComponent(namespace)}/workflows/order-1/run-1/history?referenceType=EventReference&eventID=5`,
      ),
    })),
  };
}

describe('NEXUS_CALLERS', () => {
  it('names namespaces and their operations; * is every operation', () => {
    const callers = loadConfig({ NEXUS_CALLERS: 'orders:capture+state, billing:*' }).NEXUS_CALLERS!;
    expect([...callers.get('orders')!]).toEqual(['capture', 'state']);
    expect([...callers.get('billing')!]).toEqual(paymentsOperations);
  });

  it.each([
    ['orders', /namespace:operation/],
    ['orders:refund', /unknown operation "refund"/],
    ['orders:state,orders:capture', /"orders" is given twice/],
    ['or/ders:state', /namespace:operation/],
  ])('refuses %s, naming the variable', (value, problem) => {
    expect(() => loadConfig({ NEXUS_CALLERS: value })).toThrow(/NEXUS_CALLERS/);
    expect(() => loadConfig({ NEXUS_CALLERS: value })).toThrow(problem);
  });

  it('lets orders call everything in development, and nobody in production unless set', () => {
    expect([...nexusCallersFromConfig({ NODE_ENV: 'development' }).get('orders')!]).toEqual(
      paymentsOperations,
    );
    expect(nexusCallersFromConfig({ NODE_ENV: 'production' }).size).toBe(0);
  });
});

describe('the caller namespace', () => {
  const callers = new Map([['orders', new Set(['state'] as const)]]);

  it("is the namespace of the server's one workflow link", () => {
    expect(callerNamespace(scheduledBy('orders'))).toBe('orders');
    expect(authorizedCaller(callers, scheduledBy('orders'), 'state')).toBe('orders');
  });

  it('is unknown without a link, or with a second one the caller slipped in', () => {
    expect(callerNamespace(scheduledBy())).toBeUndefined();
    expect(callerNamespace(scheduledBy('orders', 'default'))).toBeUndefined();
    expect(() => authorizedCaller(callers, scheduledBy('default', 'orders'), 'state')).toThrow(
      /calling namespace is unknown/,
    );
  });

  it('is refused, not retryably, for an operation or a namespace not allowed', () => {
    for (const [ctx, operation] of [
      [scheduledBy('orders'), 'capture'],
      [scheduledBy('default'), 'state'],
    ] as const) {
      let refused: unknown;
      try {
        authorizedCaller(callers, ctx, operation);
      } catch (error) {
        refused = error;
      }
      expect(refused).toMatchObject({ type: 'UNAUTHORIZED', retryable: false });
    }
  });
});

describe('NEXUS_ENDPOINT_KEYS', () => {
  it("holds each caller's keys, the first encrypting", () => {
    const [first, second] = [key(), key()];
    const keys = loadConfig({ NEXUS_ENDPOINT_KEYS: `orders=${first},orders=${second}` }).NEXUS_ENDPOINT_KEYS!;
    expect(keys.get('orders')!.map((entry) => entry.id)).toEqual([first, second].map((k) => k.split(':')[0]));
  });

  it('refuses a key without a namespace or of the wrong length, naming the variable', () => {
    expect(() => loadConfig({ NEXUS_ENDPOINT_KEYS: key() })).toThrow(/NEXUS_ENDPOINT_KEYS/);
    expect(() => loadConfig({ NEXUS_ENDPOINT_KEYS: 'orders=k:c2hvcnQ=' })).toThrow(/32 bytes/);
  });

  it('generates an orders key outside production, and none in production', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'endpoint-key-')), 'key');
    const generated = endpointKeysFromConfig({ NODE_ENV: 'development' }, file);
    expect(endpointKeysFromConfig({ NODE_ENV: 'development' }, file)).toEqual(generated);
    expect(generated.get('orders')?.[0]?.key).toHaveLength(32);
    expect(endpointKeysFromConfig({ NODE_ENV: 'production' }).size).toBe(0);
  });

  it('is required in production for every allowed caller namespace', () => {
    // The Nexus settings as parsed, in production (the rest of a production configuration is not theirs).
    const inProduction = (env: Record<string, string>) => ({
      ...loadConfig(env),
      NODE_ENV: 'production' as const,
    });
    const config = inProduction({ NEXUS_CALLERS: 'orders:*,billing:state' });
    expect(() => nexusCallerSettings(config)).toThrow(
      /NEXUS_ENDPOINT_KEYS: required for every namespace of NEXUS_CALLERS .*\(none for orders, billing\)/,
    );
    const keyed = inProduction({
      NEXUS_CALLERS: 'orders:*',
      NEXUS_ENDPOINT_KEYS: `orders=${key()}`,
    });
    expect([...nexusCallerSettings(keyed).callers.keys()]).toEqual(['orders']);
  });
});
