import { startSandbox, type Sandbox } from '../../src/sandbox/server';

// What the sandbox's Stripe mode plays of Stripe's documents beyond the happy path: replays marked
// `Idempotent-Replayed: true`, keys forgotten after the retention (24 hours, shortened here), `canceled_at`
// on a canceled intent, and enumerated parameters refused with Stripe's error naming the parameter.

const RETENTION_MS = 60_000;
let sandbox: Sandbox;
let clock = Date.parse('2026-11-29T07:00:00.000Z');

beforeAll(async () => {
  sandbox = await startSandbox({
    mode: 'stripe',
    logger: false,
    now: () => new Date(clock),
    stripeKeyRetentionMs: RETENTION_MS,
  });
});
afterAll(async () => {
  await sandbox.close();
});

async function heldIntent(): Promise<string> {
  const response = await fetch(`${sandbox.url}/sandbox/payment_intents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 5000, currency: 'usd', multicapture: true }),
  });
  return ((await response.json()) as { id: string }).id;
}

async function stripe(path: string, form?: string, key?: string) {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: form === undefined ? 'GET' : 'POST',
    headers: {
      authorization: 'Bearer sk_test_sandbox',
      ...(form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
      ...(key && { 'idempotency-key': key }),
    },
    ...(form !== undefined && { body: form }),
  });
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed'),
    body: (await response.json()) as Record<string, any>,
  };
}

describe("the sandbox's Stripe mode", () => {
  it('marks a replayed answer, an error included, with Idempotent-Replayed: true, and never a first one', async () => {
    const id = await heldIntent();
    const path = `/v1/payment_intents/${id}/capture`;
    const first = await stripe(path, 'amount_to_capture=1000&final_capture=false', 'replay-1');
    expect(first).toMatchObject({ status: 200, replayed: null });
    const again = await stripe(path, 'amount_to_capture=1000&final_capture=false', 'replay-1');
    expect(again).toMatchObject({ status: 200, replayed: 'true', body: first.body });

    const refused = await stripe(path, 'amount_to_capture=90000', 'replay-2');
    expect(refused).toMatchObject({ status: 400, replayed: null });
    expect(await stripe(path, 'amount_to_capture=90000', 'replay-2')).toMatchObject({
      status: 400,
      replayed: 'true',
      body: refused.body,
    });
  });

  it('forgets a key after its retention: the same request under it is processed again', async () => {
    const id = await heldIntent();
    const path = `/v1/payment_intents/${id}/capture`;
    await stripe(path, 'amount_to_capture=1000&final_capture=false', 'kept-1');
    clock += RETENTION_MS - 1;
    expect((await stripe(path, 'amount_to_capture=1000&final_capture=false', 'kept-1')).replayed).toBe(
      'true',
    );
    clock += 1;
    const after = await stripe(path, 'amount_to_capture=1000&final_capture=false', 'kept-1');
    expect(after).toMatchObject({ status: 200, replayed: null });
    expect((await stripe(`/v1/payment_intents/${id}`)).body.amount_received).toBe(2000);
  });

  it('says when an intent was canceled: canceled_at, null while it holds', async () => {
    const id = await heldIntent();
    expect((await stripe(`/v1/payment_intents/${id}`)).body.canceled_at).toBeNull();
    const canceled = await stripe(`/v1/payment_intents/${id}/cancel`, 'cancellation_reason=abandoned');
    expect(canceled.body).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'abandoned',
      canceled_at: Math.floor(clock / 1000),
    });
  });

  it('refuses a value outside an enumerated parameter, naming it, and changes nothing', async () => {
    const id = await heldIntent();
    const cases: [string, string, string][] = [
      [`/v1/payment_intents/${id}/cancel`, 'cancellation_reason=bored', 'cancellation_reason'],
      [
        '/v1/payment_intents',
        'amount=100&currency=usd&payment_method=pm_1&capture_method=later&confirm=true',
        'capture_method',
      ],
      [
        '/v1/payment_intents',
        'amount=100&currency=usd&payment_method=pm_1&capture_method=manual&confirm=true&payment_method_options[card][request_multicapture]=always',
        'payment_method_options[card][request_multicapture]',
      ],
    ];
    for (const [path, form, param] of cases) {
      const refused = await stripe(path, form);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(refused.body.error.message).toMatch(
        new RegExp(`^Invalid ${param.replace(/[[\]]/g, '\\$&')}: must be one of`),
      );
    }
    expect((await stripe(`/v1/payment_intents/${id}`)).body.status).toBe('requires_capture');
  });
});
