import { ProviderError, type PaymentsProvider } from '../../src/providers/port';
import { stripeProvider } from '../../src/providers/stripe/provider';
import { stripeEndpoint } from '../../src/providers/stripe/client';
import { respondJson, startRecordingProvider, type RecordingProvider } from '../helpers/recording-provider';
import { rejectionOf } from '../helpers/rejection';
import { chargeJson, paymentIntentJson, refundJson, stripeErrorJson } from '../helpers/stripe-objects';

let recording: RecordingProvider;

beforeEach(async () => {
  recording = await startRecordingProvider((req, res) => {
    if (req.path === '/v1/refunds') return respondJson(res, 200, refundJson());
    if (req.path.endsWith('/capture'))
      return respondJson(
        res,
        200,
        paymentIntentJson({
          amount_received: 2000,
          amount_capturable: 3000,
          latest_charge: chargeJson({ captured: true, amount_captured: 2000 }),
        }),
      );
    respondJson(res, 200, paymentIntentJson());
  });
});
afterEach(async () => {
  await recording.close();
});

function stripe(multicapture = true): PaymentsProvider {
  return stripeProvider({
    apiKey: 'sk_test_123',
    ...stripeEndpoint(recording.url),
    timeoutMs: 1000,
    multicapture,
    webhookSecrets: ['whsec_test'],
  });
}

const usd = (value: string) => ({ currency_code: 'USD', value });

/** Stripe's list of PaymentIntents (GET /v1/payment_intents), one page. */
const intentList = (data: unknown[] = [], hasMore = false) => ({
  object: 'list',
  data,
  has_more: hasMore,
  url: '/v1/payment_intents',
});
const isIntentList = (req: { method: string; path: string }) =>
  req.method === 'GET' && req.path === '/v1/payment_intents';
const sent = (index = 0) => {
  const request = recording.requests[index];
  if (!request) throw new Error(`no request ${index}`);
  return { ...request, form: new URLSearchParams(request.body.toString()) };
};

describe('the Stripe adapter', () => {
  it('reads a PaymentIntent in requires_capture as a CREATED authorization held until capture_before', async () => {
    const authorization = await stripe().getAuthorization('pi_1');
    expect(authorization).toMatchObject({
      id: 'pi_1',
      status: 'CREATED',
      amount: usd('50.00'),
      captured_amount: usd('0.00'),
      expiration_time: new Date(1_780_604_800 * 1000).toISOString(),
      card_capabilities: { multicapture: 'available', incremental_authorization: 'unavailable' },
    });
    expect(sent().method).toBe('GET');
    expect(sent().path).toBe('/v1/payment_intents/pi_1');
    expect(sent().query.getAll('expand[0]')).toEqual(['latest_charge']);
    expect(sent().headers.authorization).toBe('Bearer sk_test_123');
  });

  it('captures with amount_to_capture, final_capture=false and a key derived per operation', async () => {
    const capture = await stripe().captureAuthorization({
      authorizationId: 'pi_1',
      amount: usd('20.00'),
      finalCapture: false,
      idempotencyKey: 'pi_1/capture/key-1',
    });
    expect(capture).toMatchObject({
      id: 'ch_1',
      authorization_id: 'pi_1',
      status: 'COMPLETED',
      amount: usd('20.00'),
      final_capture: false,
    });
    expect(sent().path).toBe('/v1/payment_intents/pi_1/capture');
    expect(sent().form.get('amount_to_capture')).toBe('2000');
    expect(sent().form.get('final_capture')).toBe('false');
    expect(sent().headers['idempotency-key']).toBe('capture/pi_1/capture/key-1');
  });

  it('sends no final_capture when the account does not use multicapture', async () => {
    await stripe(false).captureAuthorization({
      authorizationId: 'pi_1',
      amount: usd('20.00'),
      finalCapture: false,
      idempotencyKey: 'k',
    });
    expect(sent().form.has('final_capture')).toBe(false);
  });

  it('reports its capabilities: 50 captures with multicapture, one without, reauthorization by a new intent', () => {
    expect(stripe(true).capabilities).toMatchObject({
      multipleCaptures: true,
      maxCaptures: 50,
      reauthorization: 'new-authorization',
    });
    expect(stripe(false).capabilities).toMatchObject({ multipleCaptures: false, maxCaptures: 1 });
  });

  it('refunds a charge in minor units under the refund key', async () => {
    const refund = await stripe().refundCapture({
      captureId: 'ch_1',
      amount: usd('10.00'),
      idempotencyKey: 'ch_1/refund/r-1',
    });
    expect(refund).toMatchObject({
      id: 're_1',
      status: 'COMPLETED',
      amount: usd('10.00'),
      capture_id: 'ch_1',
    });
    expect(sent().form.get('charge')).toBe('ch_1');
    expect(sent().form.get('amount')).toBe('1000');
    expect(sent().headers['idempotency-key']).toBe('refund/ch_1/refund/r-1');
  });

  it('refuses an amount Stripe cannot write before sending anything', async () => {
    const error = await rejectionOf(
      stripe().captureAuthorization({
        authorizationId: 'pi_1',
        amount: { currency_code: 'JPY', value: '10.5' },
        finalCapture: true,
        idempotencyKey: 'k',
      }),
      ProviderError,
    );
    expect(error.retryable).toBe(false);
    expect(recording.requests).toHaveLength(0);
  });

  it('reauthorizes new-first: a confirmed off-session manual intent on the saved card, then a cancel of the old', async () => {
    recording.setHandler((req, res) => {
      if (isIntentList(req)) return respondJson(res, 200, intentList());
      if (req.method === 'POST' && req.path === '/v1/payment_intents')
        return respondJson(res, 200, paymentIntentJson({ id: 'pi_2' }));
      if (req.path.endsWith('/cancel'))
        return respondJson(
          res,
          200,
          paymentIntentJson({ status: 'canceled', cancellation_reason: 'abandoned' }),
        );
      respondJson(res, 200, paymentIntentJson());
    });
    const authorization = await stripe().reauthorizeAuthorization({
      authorizationId: 'pi_1',
      amount: usd('50.00'),
      idempotencyKey: 'pi_1/reauthorize/r',
    });
    expect(authorization).toMatchObject({ id: 'pi_2', status: 'CREATED' });
    expect(recording.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/payment_intents/pi_1',
      'GET /v1/payment_intents',
      'POST /v1/payment_intents',
      'POST /v1/payment_intents/pi_1/cancel',
    ]);
    // The payer's intents made since the previous one, looked through for one that already replaces it.
    expect(Object.fromEntries(sent(1).query)).toEqual({
      customer: 'cus_1',
      'created[gte]': '1780000000',
      limit: '100',
      'expand[0]': 'data.latest_charge',
    });
    const create = sent(2).form;
    expect(Object.fromEntries(create)).toMatchObject({
      amount: '5000',
      currency: 'usd',
      payment_method: 'pm_1',
      customer: 'cus_1',
      capture_method: 'manual',
      confirm: 'true',
      off_session: 'true',
      'payment_method_options[card][request_multicapture]': 'if_available',
      'metadata[reauthorizes]': 'pi_1',
    });
    expect(sent(2).headers['idempotency-key']).toBe('reauthorize-create/pi_1/reauthorize/r');
    expect(sent(3).headers['idempotency-key']).toBe('reauthorize-cancel-previous/pi_1/reauthorize/r');
  });

  it('refuses, before any new intent, to reauthorize an intent Stripe cannot cancel', async () => {
    for (const previous of [
      { status: 'requires_capture', amount_received: 2000, amount_capturable: 3000 },
      { status: 'succeeded', amount_received: 2000, amount_capturable: 0 },
    ]) {
      recording.setHandler((req, res) =>
        respondJson(res, 200, isIntentList(req) ? intentList() : paymentIntentJson(previous)),
      );
      const error = await rejectionOf(
        stripe().reauthorizeAuthorization({
          authorizationId: 'pi_1',
          amount: usd('30.00'),
          idempotencyKey: 'pi_1/reauthorize/r',
        }),
        ProviderError,
      );
      expect(error).toMatchObject({ type: 'authorization_not_replaceable', retryable: false });
      expect(recording.requests.map((request) => request.method)).toEqual(['GET', 'GET']);
      recording.requests.length = 0;
    }
  });

  it('releases the new intent at once when the old one was captured before its cancel', async () => {
    let captured = false;
    recording.setHandler((req, res) => {
      if (isIntentList(req)) return respondJson(res, 200, intentList());
      if (req.method === 'POST' && req.path === '/v1/payment_intents')
        return respondJson(res, 200, paymentIntentJson({ id: 'pi_2' }));
      if (req.path === '/v1/payment_intents/pi_1/cancel') {
        captured = true;
        return respondJson(
          res,
          400,
          stripeErrorJson('invalid_request_error', { code: 'payment_intent_unexpected_state' }),
        );
      }
      if (req.path === '/v1/payment_intents/pi_2/cancel')
        return respondJson(res, 200, paymentIntentJson({ id: 'pi_2', status: 'canceled' }));
      respondJson(
        res,
        200,
        paymentIntentJson(
          captured ? { status: 'succeeded', amount_received: 5000, amount_capturable: 0 } : {},
        ),
      );
    });
    const error = await rejectionOf(
      stripe().reauthorizeAuthorization({
        authorizationId: 'pi_1',
        amount: usd('50.00'),
        idempotencyKey: 'pi_1/reauthorize/r',
      }),
      ProviderError,
    );
    expect(error).toMatchObject({ type: 'authorization_not_replaceable', retryable: false });
    expect(recording.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/payment_intents/pi_1',
      'GET /v1/payment_intents',
      'POST /v1/payment_intents',
      'POST /v1/payment_intents/pi_1/cancel',
      'GET /v1/payment_intents/pi_1',
      'POST /v1/payment_intents/pi_2/cancel',
    ]);
    expect(sent(5).headers['idempotency-key']).toBe('reauthorize-cancel-new/pi_1/reauthorize/r');
  });

  it('adopts an intent that already replaces the previous, found on a later page: cancels the previous, creates none', async () => {
    recording.setHandler((req, res) => {
      if (isIntentList(req)) {
        if (req.query.get('starting_after') === 'pi_9') {
          const renewed = { id: 'pi_2', created: 1_780_000_500, metadata: { reauthorizes: 'pi_1' } };
          return respondJson(res, 200, intentList([paymentIntentJson(renewed)]));
        }
        return respondJson(res, 200, intentList([paymentIntentJson({ id: 'pi_9' })], true));
      }
      if (req.path.endsWith('/cancel'))
        return respondJson(res, 200, paymentIntentJson({ status: 'canceled' }));
      respondJson(res, 200, paymentIntentJson());
    });
    const authorization = await stripe().reauthorizeAuthorization({
      authorizationId: 'pi_1',
      amount: usd('50.00'),
      idempotencyKey: 'pi_1/reauthorize/r',
    });
    expect(authorization).toMatchObject({ id: 'pi_2', status: 'CREATED', amount: usd('50.00') });
    expect(recording.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/payment_intents/pi_1',
      'GET /v1/payment_intents',
      'GET /v1/payment_intents',
      'POST /v1/payment_intents/pi_1/cancel',
    ]);
    expect(sent(3).headers['idempotency-key']).toBe('reauthorize-cancel-previous/pi_1/reauthorize/r');
  });

  it('adopts, once the previous is canceled, the replacement holding what is asked and releases the other', async () => {
    const replacement = (id: string, amount: number) =>
      paymentIntentJson({ id, amount, amount_capturable: amount, metadata: { reauthorizes: 'pi_1' } });
    recording.setHandler((req, res) => {
      if (isIntentList(req))
        return respondJson(res, 200, intentList([replacement('pi_3', 3000), replacement('pi_2', 5000)]));
      if (req.path.endsWith('/cancel'))
        return respondJson(res, 200, paymentIntentJson({ id: 'pi_3', status: 'canceled' }));
      respondJson(res, 200, paymentIntentJson({ status: 'canceled', amount_capturable: 0 }));
    });
    const authorization = await stripe().reauthorizeAuthorization({
      authorizationId: 'pi_1',
      amount: usd('50.00'),
      idempotencyKey: 'pi_1/reauthorize/r',
    });
    expect(authorization).toMatchObject({ id: 'pi_2', amount: usd('50.00') });
    expect(recording.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/payment_intents/pi_1',
      'GET /v1/payment_intents',
      'POST /v1/payment_intents/pi_3/cancel',
    ]);
    expect(sent(2).headers['idempotency-key']).toBe('reauthorize-cancel-found/pi_1/reauthorize/r/pi_3');
  });

  it('creates a new intent when the replacement found holds nothing any more', async () => {
    recording.setHandler((req, res) => {
      if (isIntentList(req)) {
        const canceled = {
          id: 'pi_2',
          status: 'canceled',
          amount_capturable: 0,
          metadata: { reauthorizes: 'pi_1' },
        };
        return respondJson(res, 200, intentList([paymentIntentJson(canceled)]));
      }
      if (req.method === 'POST' && req.path === '/v1/payment_intents')
        return respondJson(res, 200, paymentIntentJson({ id: 'pi_3' }));
      if (req.path.endsWith('/cancel'))
        return respondJson(res, 200, paymentIntentJson({ status: 'canceled' }));
      respondJson(res, 200, paymentIntentJson());
    });
    const authorization = await stripe().reauthorizeAuthorization({
      authorizationId: 'pi_1',
      amount: usd('50.00'),
      idempotencyKey: 'pi_1/reauthorize/r',
    });
    expect(authorization.id).toBe('pi_3');
    expect(recording.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/payment_intents/pi_1',
      'GET /v1/payment_intents',
      'POST /v1/payment_intents',
      'POST /v1/payment_intents/pi_1/cancel',
    ]);
  });

  it('releases a replacement still holding when the previous can no longer be canceled, and refuses', async () => {
    recording.setHandler((req, res) => {
      if (isIntentList(req)) {
        const holding = { id: 'pi_2', metadata: { reauthorizes: 'pi_1' } };
        return respondJson(res, 200, intentList([paymentIntentJson(holding)]));
      }
      if (req.path.endsWith('/cancel'))
        return respondJson(res, 200, paymentIntentJson({ id: 'pi_2', status: 'canceled' }));
      respondJson(
        res,
        200,
        paymentIntentJson({ status: 'succeeded', amount_received: 5000, amount_capturable: 0 }),
      );
    });
    const error = await rejectionOf(
      stripe().reauthorizeAuthorization({
        authorizationId: 'pi_1',
        amount: usd('50.00'),
        idempotencyKey: 'pi_1/reauthorize/r',
      }),
      ProviderError,
    );
    expect(error).toMatchObject({ type: 'authorization_not_replaceable', retryable: false });
    expect(recording.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/payment_intents/pi_1',
      'GET /v1/payment_intents',
      'POST /v1/payment_intents/pi_2/cancel',
    ]);
  });

  it('reauthorizes an intent without multicapture by one without it: the lifecycle keeps its one capture', async () => {
    const single = chargeJson({
      payment_method_details: { type: 'card', card: { multicapture: { status: 'unavailable' } } },
    });
    recording.setHandler((req, res) => {
      if (isIntentList(req)) return respondJson(res, 200, intentList());
      if (req.method === 'POST' && req.path === '/v1/payment_intents')
        return respondJson(res, 200, paymentIntentJson({ id: 'pi_2', latest_charge: single }));
      if (req.path.endsWith('/cancel'))
        return respondJson(res, 200, paymentIntentJson({ status: 'canceled', latest_charge: single }));
      respondJson(res, 200, paymentIntentJson({ latest_charge: single }));
    });
    await stripe().reauthorizeAuthorization({
      authorizationId: 'pi_1',
      amount: usd('50.00'),
      idempotencyKey: 'pi_1/reauthorize/r',
    });
    expect(sent(0).query.getAll('expand[0]')).toEqual(['latest_charge']);
    expect(sent(2).form.has('payment_method_options[card][request_multicapture]')).toBe(false);
  });

  it('counts an intent already canceled as voided', async () => {
    recording.setHandler((req, res) => {
      if (req.path.endsWith('/cancel'))
        return respondJson(
          res,
          400,
          stripeErrorJson('invalid_request_error', {
            code: 'payment_intent_unexpected_state',
            payment_intent: paymentIntentJson({ status: 'canceled' }),
          }),
        );
      respondJson(
        res,
        200,
        paymentIntentJson({ status: 'canceled', cancellation_reason: 'requested_by_customer' }),
      );
    });
    const voided = await stripe().voidAuthorization({ authorizationId: 'pi_1', idempotencyKey: 'v' });
    expect(voided.status).toBe('VOIDED');
  });

  it.each([
    [
      402,
      stripeErrorJson('card_error', { code: 'card_declined', decline_code: 'insufficient_funds' }),
      false,
      'insufficient_funds',
    ],
    [400, stripeErrorJson('idempotency_error'), false, 'idempotency_error'],
    [400, stripeErrorJson('invalid_request_error', { code: 'amount_too_large' }), false, 'amount_too_large'],
    [404, stripeErrorJson('invalid_request_error', { code: 'resource_missing' }), false, 'resource_missing'],
    [409, stripeErrorJson('idempotency_error', { code: 'idempotency_key_in_use' }), true, 'HTTP_409'],
    [429, stripeErrorJson('invalid_request_error', { code: 'rate_limit' }), true, 'HTTP_429'],
    [500, stripeErrorJson('api_error'), true, 'HTTP_500'],
  ] as const)(
    'classifies an answer %i %j as retryable %s, type %s',
    async (status, body, retryable, type) => {
      recording.setHandler((_req, res) => respondJson(res, status, body, { 'Retry-After': '3' }));
      const error = await rejectionOf(stripe().getAuthorization('pi_1'), ProviderError);
      expect({ retryable: error.retryable, type: error.type }).toEqual({ retryable, type });
      if (retryable) expect(error.retryAfterMs).toBe(3000);
    },
  );

  it('classifies a dropped connection as retryable', async () => {
    recording.setHandler((_req, res) => {
      res.destroy();
    });
    const error = await rejectionOf(stripe().getAuthorization('pi_1'), ProviderError);
    expect(error.retryable).toBe(true);
  });
});
