import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { resourceViolations } from '../fixtures/contract/stripe-contract';
import { startWebhookListener, type WebhookListener } from '../helpers/sandbox-fixtures';

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

describe("the sandbox's Stripe mode, listing PaymentIntents", () => {
  const customer = 'cus_listed';
  const made: string[] = [];
  let first = 0;
  beforeAll(async () => {
    first = Math.floor(clock / 1000);
    for (let n = 0; n < 5; n += 1) {
      const form = `amount=${100 + n}&currency=usd&customer=${customer}&payment_method=pm_1&capture_method=manual&confirm=true`;
      made.push((await stripe('/v1/payment_intents', form)).body.id as string);
      clock += 10_000;
    }
    await stripe(
      '/v1/payment_intents',
      'amount=1&currency=usd&payment_method=pm_2&capture_method=manual&confirm=true',
    );
  });
  const newestFirst = (...indexes: number[]) => indexes.map((index) => made[index]);
  const listed = async (query: string) => {
    const answer = await stripe(`/v1/payment_intents?customer=${customer}&${query}`);
    return { ...answer, ids: ((answer.body.data ?? []) as { id: string }[]).map((each) => each.id) };
  };

  it("lists a customer's intents newest first, each a payment_intent by Stripe's schema", async () => {
    const all = await listed('');
    expect(all.body).toMatchObject({ object: 'list', has_more: false, url: '/v1/payment_intents' });
    expect(all.ids).toEqual(newestFirst(4, 3, 2, 1, 0));
    for (const intent of all.body.data) expect(resourceViolations('payment_intent', intent)).toEqual([]);
    expect(typeof all.body.data[0].latest_charge).toBe('string');
    const expanded = await listed('expand[0]=data.latest_charge');
    expect(expanded.body.data[0].latest_charge).toMatchObject({ object: 'charge' });
  });

  it('filters by created, a Unix time or a range', async () => {
    expect((await listed(`created[gte]=${first + 20}`)).ids).toEqual(newestFirst(4, 3, 2));
    expect((await listed(`created[gt]=${first + 20}&created[lte]=${first + 30}`)).ids).toEqual(
      newestFirst(3),
    );
    expect((await listed(`created[lt]=${first + 20}`)).ids).toEqual(newestFirst(1, 0));
    expect((await listed(`created=${first + 10}`)).ids).toEqual(newestFirst(1));
  });

  it('pages by limit, starting_after and ending_before, saying whether more follow', async () => {
    expect(await listed('limit=2')).toMatchObject({ ids: newestFirst(4, 3), body: { has_more: true } });
    expect(await listed(`limit=2&starting_after=${made[3]}`)).toMatchObject({
      ids: newestFirst(2, 1),
      body: { has_more: true },
    });
    expect(await listed(`limit=2&starting_after=${made[1]}`)).toMatchObject({
      ids: newestFirst(0),
      body: { has_more: false },
    });
    expect(await listed(`limit=2&ending_before=${made[1]}`)).toMatchObject({
      ids: newestFirst(3, 2),
      body: { has_more: true },
    });
  });

  it('refuses what Stripe refuses, naming the parameter', async () => {
    const cases: [string, number, string | undefined][] = [
      ['limit=0', 400, 'limit'],
      ['limit=101', 400, 'limit'],
      ['created[after]=1', 400, 'created[after]'],
      ['created[gte]=soon', 400, 'created[gte]'],
      ['starting_after=pi_missing', 404, 'starting_after'],
      [`starting_after=${made[1]}&ending_before=${made[3]}`, 400, undefined],
      ['status=requires_capture', 400, 'status'],
    ];
    for (const [query, status, param] of cases) {
      const refused = await listed(query);
      expect({ query, status: refused.status }).toEqual({ query, status });
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', ...(param && { param }) });
    }
  });
});

describe("the sandbox's Stripe mode, money that comes back", () => {
  let listener: WebhookListener;
  beforeAll(async () => {
    listener = await startWebhookListener();
    await control('/sandbox/webhooks', { url: listener.url, event_types: [{ name: '*' }] });
  });
  afterAll(async () => {
    await listener.close();
  });

  /** The event types delivered about an object, in order, once deliveries settle. */
  async function eventsOf(objectId: string): Promise<Array<{ type: string; status?: string }>> {
    await sandbox.deliveriesSettled();
    return listener.received
      .map(
        (delivery) => JSON.parse(delivery.body.toString('utf8')) as { type: string; data: { object: any } },
      )
      .filter((event) => event.data.object.id === objectId)
      .map((event) => ({ type: event.type, status: event.data.object.status }));
  }

  async function capturedCharge(): Promise<string> {
    const id = await heldIntent();
    const captured = await stripe(`/v1/payment_intents/${id}/capture`, 'amount_to_capture=5000');
    return captured.body.latest_charge as string;
  }

  it('fails a refund: the charge counts it no longer, refund.failed and refund.updated are delivered', async () => {
    const charge = await capturedCharge();
    const refund = await stripe('/v1/refunds', `charge=${charge}&amount=1000`);
    const failed = await control(`/sandbox/refunds/${refund.body.id}/fail`, {});
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'expired_or_canceled_card' });
    expect(resourceViolations('refund', failed)).toEqual([]);
    expect((await stripe(`/v1/charges/${charge}`)).body.amount_refunded).toBe(0);
    expect(await eventsOf(refund.body.id)).toEqual([
      { type: 'refund.created', status: 'succeeded' },
      { type: 'charge.refund.updated', status: 'succeeded' },
      { type: 'refund.failed', status: 'failed' },
      { type: 'refund.updated', status: 'failed' },
      { type: 'charge.refund.updated', status: 'failed' },
    ]);
  });

  it('refuses a refund while a dispute is open or once it is lost, and refunds once it is won', async () => {
    const refund = (charge: string, amount: number) =>
      stripe('/v1/refunds', `charge=${charge}&amount=${amount}`);
    const won = await capturedCharge();
    const opened = await control(`/sandbox/charges/${won}/dispute`, {});
    expect(opened).toMatchObject({ status: 'needs_response', is_charge_refundable: false });
    const whileOpen = await refund(won, 1000);
    expect(whileOpen).toMatchObject({ status: 400, body: { error: { code: 'charge_disputed' } } });
    const closed = await control(`/sandbox/disputes/${opened.id}/close`, { outcome: 'won' });
    expect(closed).toMatchObject({ status: 'won', is_charge_refundable: true });
    expect(resourceViolations('dispute', closed)).toEqual([]);
    // The funds came back to the merchant: all the charge captured can be given back to the payer, once.
    expect((await refund(won, 4000)).status).toBe(200);
    expect((await refund(won, 1000)).status).toBe(200);
    expect(await refund(won, 1)).toMatchObject({
      status: 400,
      body: { error: { code: 'charge_already_refunded' } },
    });
    // Stripe keeps saying the charge was disputed.
    expect((await stripe(`/v1/charges/${won}`)).body).toMatchObject({
      disputed: true,
      amount_refunded: 5000,
    });

    const lost = await capturedCharge();
    const lostDispute = await control(`/sandbox/charges/${lost}/dispute`, {});
    const decided = await control(`/sandbox/disputes/${lostDispute.id}/close`, { outcome: 'lost' });
    expect(decided).toMatchObject({ status: 'lost', is_charge_refundable: false });
    expect(await refund(lost, 1000)).toMatchObject({
      status: 400,
      body: { error: { code: 'charge_disputed' } },
    });
  });

  it('withdraws funds on a dispute and reinstates them when it is won; an inquiry withdraws nothing', async () => {
    const won = await control(`/sandbox/charges/${await capturedCharge()}/dispute`, {});
    await control(`/sandbox/disputes/${won.id}/close`, { outcome: 'won' });
    expect(await eventsOf(won.id)).toEqual([
      { type: 'charge.dispute.created', status: 'needs_response' },
      { type: 'charge.dispute.funds_withdrawn', status: 'needs_response' },
      { type: 'charge.dispute.funds_reinstated', status: 'won' },
      { type: 'charge.dispute.closed', status: 'won' },
    ]);

    const lost = await control(`/sandbox/charges/${await capturedCharge()}/dispute`, {});
    await control(`/sandbox/disputes/${lost.id}/close`, { outcome: 'lost' });
    expect((await eventsOf(lost.id)).map((event) => event.type)).toEqual([
      'charge.dispute.created',
      'charge.dispute.funds_withdrawn',
      'charge.dispute.closed',
    ]);

    const charge = await capturedCharge();
    const inquiry = await control(`/sandbox/charges/${charge}/dispute`, { inquiry: true });
    expect(inquiry.status).toBe('warning_needs_response');
    // Nothing was withdrawn: the charge can still be refunded.
    expect((await stripe('/v1/refunds', `charge=${charge}&amount=100`)).status).toBe(200);
    await control(`/sandbox/disputes/${inquiry.id}/close`, { outcome: 'won' });
    expect(await eventsOf(inquiry.id)).toEqual([
      { type: 'charge.dispute.created', status: 'warning_needs_response' },
      { type: 'charge.dispute.closed', status: 'warning_closed' },
    ]);
  });
});

async function control(path: string, body: unknown): Promise<Record<string, any>> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, any>;
}
