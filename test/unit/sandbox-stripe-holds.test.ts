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

async function send(path: string, body: string | object): Promise<{ status: number; json: any }> {
  const form = typeof body === 'string';
  const response = await fetch(`${sandbox.url}${path}`, {
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
    const mastercard = (await offSession((await checkout({ brand: 'mastercard' })).payment_method)).json;
    expect(cardOf(mastercard)).toMatchObject({
      brand: 'mastercard',
      capture_before: mastercard.created + 7 * DAY,
    });
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
    const refused = await offSession(
      (await checkout()).payment_method,
      '&payment_method_options[card][request_overcapture]=always',
    );
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ param: 'payment_method_options[card][request_overcapture]' });
  });
});

describe('overcapture', () => {
  it('takes up to maximum_amount_capturable in one final capture, and not a minor unit more', async () => {
    const held = await checkout({ overcapture: true });
    expect(cardOf(held).overcapture).toEqual({ status: 'available', maximum_amount_capturable: 12000 });
    const beyond = await send(`/v1/payment_intents/${held.id}/capture`, 'amount_to_capture=12001');
    expect(beyond.status).toBe(400);
    expect(beyond.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount_to_capture' });
    const captured = await send(`/v1/payment_intents/${held.id}/capture`, 'amount_to_capture=12000');
    expect(captured.json).toMatchObject({
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
    await send(`/v1/payment_intents/${held.id}/increment_authorization`, 'amount=15000');
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
    expect((await send(`/sandbox/payment_intents/${held.id}/capture_before`, {})).status).toBe(400);
  });
});
