import { loadConfig, productionSettingsOf } from '../config';
import { manageSubscriptionFromConfig } from '../webhooks/ensure-subscription';

/**
 * `npm run webhooks:subscribe [-- --remove]`: ensures (or deletes) the provider's subscription for
 * WEBHOOK_LISTENER_URL through the worker, and prints it as JSON.
 */
async function main() {
  const action = process.argv.includes('--remove') ? 'remove' : 'ensure';
  console.log(
    JSON.stringify(
      await manageSubscriptionFromConfig(
        loadConfig(process.env, productionSettingsOf.webhookSubscription),
        action,
      ),
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
