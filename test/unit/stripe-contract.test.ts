import { resolveStripeMock, startStripeMock, type RunningStripeMock } from '../../src/dev/stripe-mock';
import type { PaymentsProvider } from '../../src/providers/port';
import type Stripe from 'stripe';
import { stripeClient, stripeEndpoint } from '../../src/providers/stripe/client';
import { reauthorizationParams, stripeProvider } from '../../src/providers/stripe/provider';
import { startSandbox } from '../../src/sandbox/server';
import {
  decodeForm,
  requestViolations,
  resourceViolations,
  type StripeRequest,
} from '../fixtures/contract/stripe-contract';
import { respondJson, startRecordingProvider, type RecordingProvider } from '../helpers/recording-provider';
import { chargeJson, paymentIntentJson, refundJson } from '../helpers/stripe-objects';

const usd = (value: string) => ({ currency_code: 'USD', value });

function adapter(url: string, multicapture = true): PaymentsProvider {
  return stripeProvider({
    apiKey: 'sk_test_123',
    ...stripeEndpoint(url),
    timeoutMs: 5000,
    multicapture,
    webhookSecrets: ['whsec_test'],
  });
}

/** Every operation of the adapter that sends a body, once each way it can. */
async function everyChange(stripe: PaymentsProvider, intentId: string, chargeId: string) {
  await stripe.captureAuthorization({
    authorizationId: intentId,
    amount: usd('20.00'),
    finalCapture: false,
    idempotencyKey: 'k1',
    invoiceId: 'INV-1',
  });
  await stripe.captureAuthorization({
    authorizationId: intentId,
    amount: usd('30.00'),
    finalCapture: true,
    idempotencyKey: 'k2',
  });
  await stripe.refundCapture({ captureId: chargeId, amount: usd('5.00'), idempotencyKey: 'r1' });
  await stripe.refundCapture({ captureId: chargeId, idempotencyKey: 'r2', invoiceId: 'INV-1' });
  await stripe.voidAuthorization({ authorizationId: intentId, idempotencyKey: 'v1' });
}

describe("the adapter's requests against Stripe's OpenAPI document", () => {
  let recording: RecordingProvider;
  beforeAll(async () => {
    recording = await startRecordingProvider((req, res) => {
      if (req.path === '/v1/refunds') return respondJson(res, 200, refundJson());
      if (req.method === 'GET' && req.path === '/v1/payment_intents') {
        return respondJson(res, 200, { object: 'list', data: [], has_more: false, url: req.path });
      }
      respondJson(res, 200, paymentIntentJson({ latest_charge: chargeJson({ captured: true }) }));
    });
  });
  afterAll(async () => {
    await recording.close();
  });

  it('sends only bodies the document allows, to the operation it names', async () => {
    const stripe = adapter(recording.url);
    await everyChange(stripe, 'pi_1', 'ch_1');
    await stripe.reauthorizeAuthorization({
      authorizationId: 'pi_1',
      amount: usd('50.00'),
      idempotencyKey: 'a1',
    });
    const operations: [RegExp, StripeRequest][] = [
      [/^\/v1\/payment_intents\/[^/]+\/capture$/, 'capture_payment_intent'],
      [/^\/v1\/payment_intents\/[^/]+\/cancel$/, 'cancel_payment_intent'],
      [/^\/v1\/payment_intents$/, 'create_payment_intent'],
      [/^\/v1\/refunds$/, 'create_refund'],
    ];
    const posts = recording.requests.filter((request) => request.method === 'POST');
    expect(posts.length).toBe(7);
    for (const request of posts) {
      const operation = operations.find(([path]) => path.test(request.path));
      expect(operation).toBeDefined();
      expect(requestViolations(operation![1], request.body.toString())).toEqual([]);
      expect(request.headers['idempotency-key']).toMatch(/^[a-z-]+\/\w+$/);
    }
  });

  it('would notice a parameter the document does not have, or a wrong type', () => {
    expect(requestViolations('capture_payment_intent', 'amount_to_capture=2000&final=false')).not.toEqual([]);
    expect(requestViolations('create_refund', 'amount=ten')).not.toEqual([]);
    expect(requestViolations('create_payment_intent', 'amount=100')).not.toEqual([]);
  });

  it('reads the form encoding back as the SDK meant it', () => {
    expect(decodeForm('a=1&b[c][d]=x&expand[0]=latest_charge&expand[1]=customer')).toEqual({
      a: '1',
      b: { c: { d: 'x' } },
      expand: ['latest_charge', 'customer'],
    });
  });
});

describe('the adapter against stripe-mock (Stripe validates every request against its own document)', () => {
  let mock: RunningStripeMock | undefined;
  let unavailable = '';

  beforeAll(async () => {
    try {
      mock = await startStripeMock(await resolveStripeMock(process.env, () => {}));
    } catch (error) {
      // Only a machine without the Go module proxy gets here; CI builds it (npm run stripe-mock:resolve).
      unavailable = error instanceof Error ? error.message : String(error);
      console.warn(`stripe-mock unavailable, its checks are skipped: ${unavailable}`);
    }
  }, 600_000);
  afterAll(async () => {
    await mock?.process.stop();
  });

  it('reads, captures, refunds, voids and reauthorizes without a request stripe-mock refuses', async () => {
    if (!mock) return expect(unavailable).not.toBe('');
    const stripe = adapter(mock.url);
    const authorization = await stripe.getAuthorization('pi_123');
    expect(authorization.id).toMatch(/^pi_/);
    await everyChange(stripe, 'pi_123', 'ch_123');
    const capture = await stripe.getCapture('ch_123');
    expect(capture.id).toMatch(/^ch_/);
    const refund = await stripe.getRefund('re_123');
    expect(refund.id).toMatch(/^re_/);
    // stripe-mock's intent has no saved card, so the reauthorization's new intent is sent as the adapter builds it.
    const previous = paymentIntentJson({ id: 'pi_123' }) as unknown as Stripe.PaymentIntent;
    const created = await stripeClient({
      apiKey: 'sk_test_123',
      ...stripeEndpoint(mock.url),
    }).paymentIntents.create(
      reauthorizationParams(previous, usd('50.00'), {
        multicapture: true,
        overcapture: true,
        extendedAuthorization: true,
      }),
      {
        idempotencyKey: 'reauthorize-create/a1',
      },
    );
    expect(created.id).toMatch(/^pi_/);
  });

  it('accepts and refuses as the sandbox does the enumerated parameters of the requests the service sends', async () => {
    if (!mock) return expect(unavailable).not.toBe('');
    const sandbox = await startSandbox({ mode: 'stripe', logger: false });
    try {
      const held = await fetch(`${sandbox.url}/sandbox/payment_intents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 5000, currency: 'usd', multicapture: true }),
      });
      const sandboxIntent = ((await held.json()) as { id: string }).id;
      const newIntent = 'amount=100&currency=usd&payment_method=pm_card_visa&confirm=true&off_session=true';
      // [the request's path at Stripe (`{pi}` the intent), its form, the parameter refused or none]
      const requests: [string, string, string | undefined][] = [
        ['/v1/payment_intents/{pi}/cancel', 'cancellation_reason=abandoned', undefined],
        ['/v1/payment_intents/{pi}/cancel', 'cancellation_reason=bored', 'cancellation_reason'],
        ['/v1/payment_intents', `${newIntent}&capture_method=manual`, undefined],
        ['/v1/payment_intents', `${newIntent}&capture_method=later`, 'capture_method'],
        [
          '/v1/payment_intents',
          `${newIntent}&capture_method=manual&payment_method_options[card][request_multicapture]=never`,
          undefined,
        ],
        [
          '/v1/payment_intents',
          `${newIntent}&capture_method=manual&payment_method_options[card][request_multicapture]=always`,
          'payment_method_options',
        ],
      ];
      const answer = async (base: string, intent: string, path: string, form: string) => {
        const response = await fetch(`${base}${path.replace('{pi}', intent)}`, {
          method: 'POST',
          headers: {
            authorization: 'Bearer sk_test_123',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: form,
        });
        const body = (await response.json()) as { error?: { type: string; message: string } };
        return { status: response.status, error: body.error };
      };
      for (const [path, form, refused] of requests) {
        const atStripe = await answer(mock.url, 'pi_123', path, form);
        // The parameters are checked before the intent's state: a second cancel is refused for its value first.
        const atSandbox = await answer(sandbox.url, sandboxIntent, path, form);
        const seen = `${path} ${form}`;
        if (refused === undefined) {
          expect([seen, atStripe.status]).toEqual([seen, 200]);
          expect([seen, atSandbox.error?.message ?? '']).not.toContain('Invalid');
          continue;
        }
        for (const each of [atStripe, atSandbox]) {
          expect([seen, each.status, each.error?.type]).toEqual([seen, 400, 'invalid_request_error']);
          expect(each.error?.message).toContain(refused);
        }
      }
    } finally {
      await sandbox.close();
    }
  });

  it("answers resources that satisfy the derived schemas (stripe-mock's fixtures are Stripe's own)", async () => {
    if (!mock) return expect(unavailable).not.toBe('');
    const get = async (path: string) =>
      (await fetch(`${mock!.url}${path}`, { headers: { Authorization: 'Bearer sk_test_123' } })).json();
    expect(resourceViolations('payment_intent', await get('/v1/payment_intents/pi_123'))).toEqual([]);
    expect(resourceViolations('refund', await get('/v1/refunds/re_123'))).toEqual([]);
    expect(resourceViolations('charge', await get('/v1/charges/ch_123'))).toEqual([]);
    const refused = await get('/v1/payment_intents/pi_123?bogus=1');
    expect(refused).toHaveProperty('error.type', 'invalid_request_error');
    expect(resourceViolations('error', refused)).toEqual([]);
  });
});
