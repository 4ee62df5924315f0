import type { ApiOptions } from '../../src/api/server';
import type { DeliveryHeaderNames } from '../../src/providers/port';
import {
  paypalDeliveryIntake,
  stripeDeliveryIntake,
  type PayPalDeliveryIntakeOptions,
} from '../../src/providers/registry';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import type { Client } from '@temporalio/client';
import { STRIPE_DELIVERY_VERIFICATION } from '../../src/providers/stripe/delivery-intake';
import { VerificationStarter } from '../../src/webhooks/verification-starter';

const BODY_LIMIT_BYTES = 64 * 1024;

/** The API's intake of PayPal's deliveries (at /webhooks/paypal and /webhooks/payments), as src/api/main.ts builds it. */
export function paypalWebhooks(
  verifications: VerificationStarter,
  headerNames: DeliveryHeaderNames,
  options: Partial<PayPalDeliveryIntakeOptions> & { bodyLimitBytes?: number } = {},
): NonNullable<ApiOptions['webhooks']> {
  const { bodyLimitBytes = BODY_LIMIT_BYTES, ...intake } = options;
  return {
    bodyLimitBytes,
    intakes: [
      {
        delivery: paypalDeliveryIntake({
          headerNames,
          toleranceMs: 600_000,
          aliasPaths: [WEBHOOK_ROUTE],
          ...intake,
        }),
        verifications,
      },
    ],
  };
}

/** Stripe's deliveries' verification runs, as the Stripe intake fixes them (locally, by the endpoint's secrets). */
export function stripeVerificationStarter(client: Client, taskQueue: string): VerificationStarter {
  return new VerificationStarter({ client, taskQueue, provider: 'stripe', ...STRIPE_DELIVERY_VERIFICATION });
}

/** The API's intake of Stripe's deliveries (at /webhooks/stripe) with the endpoint's `secrets`. */
export function stripeWebhooks(
  verifications: VerificationStarter,
  secrets: readonly string[],
  bodyLimitBytes = BODY_LIMIT_BYTES,
): NonNullable<ApiOptions['webhooks']> {
  return { bodyLimitBytes, intakes: [{ delivery: stripeDeliveryIntake({ secrets }), verifications }] };
}

/** One API taking both providers' deliveries. */
export function bothWebhooks(
  ...intakes: Array<NonNullable<ApiOptions['webhooks']>>
): NonNullable<ApiOptions['webhooks']> {
  return { bodyLimitBytes: intakes[0]!.bodyLimitBytes, intakes: intakes.flatMap((one) => one.intakes) };
}
