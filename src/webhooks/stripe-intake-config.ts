import type { Client } from '@temporalio/client';
import { VerificationStarter } from './verification-starter';

/**
 * The subscription name a Stripe delivery's run records: Stripe signs for its endpoint's secrets, not for a
 * webhook id, so the intake names one and the run never looks a subscription up.
 */
export const STRIPE_ENDPOINT_WEBHOOK_ID = 'stripe-endpoint';

// Stripe issues secrets of 32 characters after the prefix; fewer is a placeholder, never a live endpoint's.
const MIN_PRODUCTION_SECRET_CHARS = 24;

/**
 * STRIPE_WEBHOOK_SECRETS: the endpoint's signing secrets (`whsec_…`), comma-separated, the old and the new
 * during a rotation. None set: the Stripe intake is not served. An entry that is not a `whsec_` secret, or in
 * production one shorter than Stripe issues (such as the sandbox's `whsec_sandbox`), stops start-up, naming
 * the variable.
 */
export function stripeWebhookSecretsFromEnv(env: NodeJS.ProcessEnv): string[] | undefined {
  const raw = env.STRIPE_WEBHOOK_SECRETS?.trim();
  if (!raw) return undefined;
  const secrets = raw.split(',').map((entry) => entry.trim());
  const shortest = env.NODE_ENV === 'production' ? MIN_PRODUCTION_SECRET_CHARS : 1;
  const malformed = secrets.filter(
    (secret) => !secret.startsWith('whsec_') || secret.length - 'whsec_'.length < shortest,
  );
  if (malformed.length > 0) {
    throw new Error(
      `STRIPE_WEBHOOK_SECRETS: ${malformed.length} of ${secrets.length} entries are not endpoint signing ` +
        `secrets (whsec_ and at least ${shortest} more characters)`,
    );
  }
  return secrets;
}

/** One verification run per Stripe event id, checked by HMAC in the worker (no provider round trip). */
export function stripeVerificationStarter(client: Client, taskQueue: string): VerificationStarter {
  return new VerificationStarter({ client, taskQueue, mode: 'local', webhookId: STRIPE_ENDPOINT_WEBHOOK_ID });
}
