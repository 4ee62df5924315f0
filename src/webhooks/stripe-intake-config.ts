import type { Client } from '@temporalio/client';
import { VerificationStarter } from './verification-starter';

/**
 * The subscription name a Stripe delivery's run records: Stripe signs for its endpoint's secrets, not for a
 * webhook id, so the intake names one and the run never looks a subscription up.
 */
export const STRIPE_ENDPOINT_WEBHOOK_ID = 'stripe-endpoint';

/**
 * One verification run per Stripe event id, checked by HMAC in the worker (no provider round trip) with
 * Stripe's webhook activities: a worker without Stripe leaves the run waiting.
 */
export function stripeVerificationStarter(client: Client, taskQueue: string): VerificationStarter {
  return new VerificationStarter({
    client,
    taskQueue,
    mode: 'local',
    webhookId: STRIPE_ENDPOINT_WEBHOOK_ID,
    provider: 'stripe',
  });
}
