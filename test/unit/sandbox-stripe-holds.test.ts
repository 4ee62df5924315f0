import { startSandbox, type Sandbox } from '../../src/sandbox/server';

// The sandbox's Stripe mode keeps holds as the card networks do: each kind of hold ends when Stripe's table
// says (capture_before), a card allows what it allows (extended authorization, overcapture), and a control
// route moves a hold's end so tests need not wait days.

const HOUR = 3600;
const DAY = 24 * HOUR;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ mode: 'stripe', logger: false });
});
afterAll(async () => {
  await sandbox.close();
});

async function send(
  path: string,
  body: string | object,
  at: Sandbox = sandbox,
): Promise<{ status: number; json: any }> {
  const form = typeof body === 'string';
  const response = await fetch(`${at.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
      authorization: 'Bearer sk_test_sandbox',
    },
    body: form ? body : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

/** The payer's checkout: a held intent on a card of its own; answers the intent with its charge. */
async function checkout(card: object = {}) {
  const { json } = await send('/sandbox/payment_intents', { amount: 10000, currency: 'usd', ...card });
  return json as { id: string; created: number; payment_method: string; latest_charge: any };
}

/** What a reauthorization sends: an off-session intent on the saved card, asking for `options`. */
async function offSession(paymentMethod: string, options = '') {
  return send(
    '/v1/payment_intents',
    `amount=10000&currency=usd&payment_method=${paymentMethod}&capture_method=manual&confirm=true&off_session=true&expand[0]=latest_charge${options}`,
  );
}

const cardOf = (intent: { latest_charge: any }) => intent.latest_charge.payment_method_details.card;

describe("a hold's capture_before, by its kind", () => {
  it('is 7 days for the checkout, 4 days 18 hours for a Visa merchant-initiated one, 7 for another brand', async () => {
    const held = await checkout();
    expect(cardOf(held).capture_before).toBe(held.created + 7 * DAY);
    const visa = (await offSession(held.payment_method)).json;
    expect(cardOf(visa)).toMatchObject({ brand: 'visa', capture_before: visa.created + 4 * DAY + 18 * HOUR });
    for (const brand of ['mastercard', 'amex', 'discover']) {
      const other = (await offSession((await checkout({ brand })).payment_method)).json;
      expect(cardOf(other)).toMatchObject({ brand, capture_before: other.created + 7 * DAY });
    }
  });

  it("lasts the checkout's hold_days where the test gives them, an extended hold's too", async () => {
    const short = await checkout({ hold_days: 2 });
    expect(cardOf(short).capture_before).toBe(short.created + 2 * DAY);
    const extended = await checkout({ extended: true, hold_days: 3 });
    expect(cardOf(extended)).toMatchObject({
      capture_before: extended.created + 3 * DAY,
      extended_authorization: { status: 'enabled' },
    });
    expect(
      (await send('/sandbox/payment_intents', { amount: 1, currency: 'usd', hold_days: 31 })).status,
    ).toBe(400);
  });

  it('is 30 days for an extended authorization the card allows, and only then', async () => {
    const extended = await checkout({ extended: true });
    expect(cardOf(extended)).toMatchObject({
      capture_before: extended.created + 30 * DAY,
      extended_authorization: { status: 'enabled' },
    });
    const asked = '&payment_method_options[card][request_extended_authorization]=if_available';
    const renewed = (await offSession(extended.payment_method, asked)).json;
    expect(cardOf(renewed)).toMatchObject({
      capture_before: renewed.created + 30 * DAY,
      extended_authorization: { status: 'enabled' },
    });
    const plain = (await offSession((await checkout()).payment_method, asked)).json;
    expect(cardOf(plain)).toMatchObject({
      capture_before: plain.created + 4 * DAY + 18 * HOUR,
      extended_authorization: { status: 'disabled' },
    });
  });

  it('refuses a request_… option outside Stripe enumeration, naming it', async () => {
    const card = (await checkout()).payment_method;
    for (const option of [
      'request_overcapture',
      'request_extended_authorization',
      'request_incremental_authorization',
    ]) {
      const param = `payment_method_options[card][${option}]`;
      const refused = await offSession(card, `&${param}=always`);
      expect(refused.status).toBe(400);
      expect(refused.json.error).toEqual({
        type: 'invalid_request_error',
        code: 'parameter_invalid_string',
        param,
        message: `Invalid ${param}: must be one of if_available, or never`,
      });
      expect((await offSession(card, `&${param}=never`)).status).toBe(200);
    }
  });
});

describe('a card, kept per payment method', () => {
  const everything = [
    'request_multicapture',
    'request_incremental_authorization',
    'request_extended_authorization',
    'request_overcapture',
  ]
    .map((option) => `&payment_method_options[card][${option}]=if_available`)
    .join('');

  it('gives a later intent its brand and what it allows, where the intent asks', async () => {
    const allowing = {
      brand: 'amex',
      multicapture: true,
      incremental: true,
      extended: true,
      overcapture: true,
    };
    const card = (await checkout(allowing)).payment_method;
    const asked = (await offSession(card, everything)).json;
    expect(asked.payment_method).toBe(card);
    expect(cardOf(asked)).toMatchObject({
      brand: 'amex',
      capture_before: asked.created + 30 * DAY,
      multicapture: { status: 'available' },
      incremental_authorization: { status: 'available' },
      extended_authorization: { status: 'enabled' },
      overcapture: { status: 'available', maximum_amount_capturable: 12000 },
    });
    const unasked = (await offSession(card)).json;
    expect(cardOf(unasked)).toMatchObject({
      brand: 'amex',
      capture_before: unasked.created + 7 * DAY,
      multicapture: { status: 'unavailable' },
      incremental_authorization: { status: 'unavailable' },
      extended_authorization: { status: 'disabled' },
      overcapture: { status: 'unavailable', maximum_amount_capturable: 10000 },
    });
  });

  it('gives nothing a card does not allow, however the intent asks', async () => {
    const plain = (await offSession((await checkout()).payment_method, everything)).json;
    expect(cardOf(plain)).toMatchObject({
      brand: 'visa',
      multicapture: { status: 'unavailable' },
      incremental_authorization: { status: 'unavailable' },
      extended_authorization: { status: 'disabled' },
      overcapture: { status: 'unavailable' },
    });
    const partial = await send(
      `/v1/payment_intents/${plain.id}/capture`,
      'amount_to_capture=100&final_capture=false',
    );
    expect(partial.json.error).toMatchObject({ param: 'final_capture' });
  });

  it('refuses a brand the sandbox does not play', async () => {
    const refused = await send('/sandbox/payment_intents', { amount: 100, currency: 'usd', brand: 'jcb' });
    expect(refused.status).toBe(400);
  });
});

describe('overcapture', () => {
  it('takes up to maximum_amount_capturable in one final capture, and not a minor unit more', async () => {
    const held = await checkout({ overcapture: true });
    expect(cardOf(held).overcapture).toEqual({ status: 'available', maximum_amount_capturable: 12000 });
    const beyond = await send(`/v1/payment_intents/${held.id}/capture`, 'amount_to_capture=12001');
    expect(beyond.status).toBe(400);
    expect(beyond.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount_to_capture' });
    expect(beyond.json.error.message).toContain('maximum_amount_capturable (12000)');
    const captured = await send(
      `/v1/payment_intents/${held.id}/capture`,
      'amount_to_capture=12000&expand[0]=latest_charge',
    );
    expect(captured.json).toMatchObject({
      status: 'succeeded',
      amount_received: 12000,
      amount_capturable: 0,
      latest_charge: { amount: 10000, amount_captured: 12000, captured: true },
    });
  });

  it('refuses one minor unit more than is held on a card without it', async () => {
    const held = await checkout();
    const beyond = await send(`/v1/payment_intents/${held.id}/capture`, 'amount_to_capture=10001');
    expect(beyond.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount_to_capture' });
    expect(beyond.json.error.message).toContain('amount_capturable (10000)');
  });

  it('with multicapture, goes beyond what is held only in a final capture, up to the maximum in all', async () => {
    const held = await checkout({ overcapture: true, multicapture: true });
    const capture = (form: string) => send(`/v1/payment_intents/${held.id}/capture`, form);
    const firstOver = await capture('amount_to_capture=10001&final_capture=false');
    expect(firstOver.json.error).toMatchObject({ code: 'parameter_invalid', param: 'final_capture' });
    expect((await capture('amount_to_capture=4000&final_capture=false')).json).toMatchObject({
      status: 'requires_capture',
      amount_capturable: 6000,
    });
    expect((await capture('amount_to_capture=6001&final_capture=false')).json.error).toMatchObject({
      param: 'final_capture',
    });
    const beyond = (await capture('amount_to_capture=8001')).json.error;
    expect(beyond).toMatchObject({ code: 'amount_too_large', param: 'amount_to_capture' });
    expect(beyond.message).toContain('maximum_amount_capturable (12000) less the amount_received (4000)');
    expect((await capture('amount_to_capture=8000')).json).toMatchObject({
      status: 'succeeded',
      amount_received: 12000,
      amount_capturable: 0,
    });
  });

  it('is unavailable on a card without it, and an incremental authorization raises the maximum', async () => {
    expect(cardOf(await checkout()).overcapture).toEqual({
      status: 'unavailable',
      maximum_amount_capturable: 10000,
    });
    const held = await checkout({ overcapture: true, incremental: true });
    const raised = (
      await send(
        `/v1/payment_intents/${held.id}/increment_authorization`,
        'amount=15000&expand[0]=latest_charge',
      )
    ).json;
    expect(cardOf(raised).overcapture).toEqual({ status: 'available', maximum_amount_capturable: 18000 });
    const beyond = await send(`/v1/payment_intents/${held.id}/capture`, 'amount_to_capture=18001');
    expect(beyond.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount_to_capture' });
    const captured = (await send(`/v1/payment_intents/${held.id}/capture`, 'amount_to_capture=18000')).json;
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 18000 });
  });
});

describe("moving a hold's end", () => {
  it('sets capture_before; a past one lapses the hold', async () => {
    const held = await checkout();
    const later = held.created + 2 * HOUR;
    const moved = (
      await send(`/sandbox/payment_intents/${held.id}/capture_before`, { capture_before: later })
    ).json;
    expect(cardOf(moved).capture_before).toBe(later);
    const past = (
      await send(`/sandbox/payment_intents/${held.id}/capture_before`, { capture_before: held.created })
    ).json;
    expect(past).toMatchObject({ status: 'canceled', cancellation_reason: 'automatic' });
    expect(cardOf(past).capture_before).toBe(held.created);
  });

  it('refuses a bad capture_before (400 naming it) and an unknown intent (404)', async () => {
    const held = await checkout();
    for (const body of [{}, { capture_before: 'tomorrow' }, { capture_before: 1.5 }]) {
      const refused = await send(`/sandbox/payment_intents/${held.id}/capture_before`, body);
      expect(refused.status).toBe(400);
      expect(refused.json.error.param).toBe('/capture_before');
    }
    const unknown = await send('/sandbox/payment_intents/pi_unknown/capture_before', { capture_before: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'resource_missing' });
  });

  it('lapses the hold on its first read after the moved end passes, as an expired one', async () => {
    let clock = Date.parse('2026-12-01T12:00:00Z');
    const timed = await startSandbox({ mode: 'stripe', logger: false, now: () => new Date(clock) });
    try {
      const held = (await send('/sandbox/payment_intents', { amount: 500, currency: 'usd' }, timed)).json;
      const end = held.created + HOUR;
      await send(`/sandbox/payment_intents/${held.id}/capture_before`, { capture_before: end }, timed);
      const read = async () =>
        (
          await fetch(`${timed.url}/v1/payment_intents/${held.id}`, {
            headers: { authorization: 'Bearer sk_test_sandbox' },
          })
        ).json();
      clock += HOUR * 1000 - 1000;
      expect(await read()).toMatchObject({ status: 'requires_capture', amount_capturable: 500 });
      clock += 1000;
      expect(await read()).toMatchObject({
        status: 'canceled',
        cancellation_reason: 'automatic',
        canceled_at: end,
        amount_capturable: 0,
      });
      const late = await send(`/v1/payment_intents/${held.id}/capture`, '', timed);
      expect(late.json.error).toMatchObject({ code: 'payment_intent_unexpected_state' });
    } finally {
      await timed.close();
    }
  });
});
