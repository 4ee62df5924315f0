// Stripe resources as the API answers them (API version 2026-08-26), trimmed to the fields the adapter reads
// plus the ones Stripe's schema requires; each test overrides what it is about.

export function chargeJson(overrides: Record<string, unknown> = {}) {
  return {
    id: 'ch_1',
    object: 'charge',
    amount: 5000,
    amount_captured: 0,
    amount_refunded: 0,
    captured: false,
    currency: 'usd',
    created: 1_780_000_000,
    livemode: false,
    metadata: {},
    paid: true,
    payment_intent: 'pi_1',
    refunded: false,
    status: 'succeeded',
    payment_method_details: {
      type: 'card',
      card: {
        capture_before: 1_780_604_800,
        multicapture: { status: 'available' },
        incremental_authorization: { status: 'unavailable' },
        extended_authorization: { status: 'disabled' },
      },
    },
    ...overrides,
  };
}

export function paymentIntentJson(overrides: Record<string, unknown> = {}) {
  return {
    id: 'pi_1',
    object: 'payment_intent',
    amount: 5000,
    amount_capturable: 5000,
    amount_received: 0,
    capture_method: 'manual',
    cancellation_reason: null,
    currency: 'usd',
    created: 1_780_000_000,
    customer: 'cus_1',
    last_payment_error: null,
    latest_charge: chargeJson(),
    livemode: false,
    metadata: {},
    payment_method: 'pm_1',
    status: 'requires_capture',
    ...overrides,
  };
}

export function refundJson(overrides: Record<string, unknown> = {}) {
  return {
    id: 're_1',
    object: 'refund',
    amount: 1000,
    charge: 'ch_1',
    currency: 'usd',
    created: 1_780_000_100,
    metadata: {},
    payment_intent: 'pi_1',
    status: 'succeeded',
    ...overrides,
  };
}

export function stripeErrorJson(type: string, fields: Record<string, unknown> = {}) {
  return { error: { type, message: `${type} in this test`, ...fields } };
}
