import { loadSandboxConfig, productionSettingsOf } from '../config';
import { createLogger } from '../logger';
import { startSandbox } from './server';

/** Runs the payments sandbox on its own: `tsx src/sandbox/main.ts`. SIGINT/SIGTERM stop it. */
async function main() {
  const config = loadSandboxConfig(process.env, productionSettingsOf.sandbox);
  const log = createLogger(config, 'payments-sandbox');
  const sandbox = await startSandbox({
    port: config.SANDBOX_PORT,
    host: config.SANDBOX_HOST,
    // The sandbox answers by the contract the client is configured to speak.
    mode: config.SANDBOX_MODE ?? config.PAYPAL_DIALECT,
    stripeWebhookSecrets: config.STRIPE_WEBHOOK_SECRETS,
    clientId: config.PAYPAL_CLIENT_ID,
    clientSecret: config.PAYPAL_CLIENT_SECRET,
    staticTokens: config.PAYPAL_ACCESS_TOKEN ? [config.PAYPAL_ACCESS_TOKEN] : [],
    authorizationValidityDays: config.SANDBOX_AUTHORIZATION_VALIDITY_DAYS,
    ...(config.SANDBOX_PUBLIC_URL && { publicUrl: config.SANDBOX_PUBLIC_URL }),
    logger: log,
  });
  console.log(`Payments sandbox: ${sandbox.url} (control API: ${sandbox.url}/sandbox)`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping payments sandbox');
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'payments sandbox did not stop cleanly');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
