import { z } from 'zod';
import { apiSettings } from './api';
import { charactersSettings } from './characters';
import { codecSettings } from './codec';
import { lifecycleSettings } from './lifecycle';
import { nexusSettings } from './nexus';
import { paypalSettings } from './paypal';
import { someOf } from './piece';
import { processSettings } from './process';
import { providerSettings } from './providers';
import { sandboxSettings } from './sandbox';
import { stripeSettings } from './stripe';
import { devServerSettings, temporalSettings } from './temporal';
import { webhookSettings } from './webhooks';
import { workerSettings } from './worker';

// One schema per program, each of the variables that program reads, built from the pieces that define them.

/** Every piece, in the order the configuration reference lists them. */
export const settingsPieces = [
  processSettings,
  temporalSettings,
  devServerSettings,
  workerSettings,
  providerSettings,
  paypalSettings,
  stripeSettings,
  sandboxSettings,
  apiSettings,
  webhookSettings,
  codecSettings,
  nexusSettings,
  lifecycleSettings,
  charactersSettings,
] as const;

/** The HTTP API: lifecycles for order systems, webhook intakes (PayPal's, Stripe's), the codec server. */
export const apiSchema = z.object({
  ...processSettings.shape,
  ...temporalSettings.shape,
  ...someOf(devServerSettings, 'TEMPORAL_UI_PORT'),
  ...apiSettings.shape,
  ...webhookSettings.shape,
  ...codecSettings.shape,
  ...someOf(nexusSettings, 'NEXUS_ENDPOINT_KEYS'),
  ...providerSettings.shape,
  ...paypalSettings.shape,
  ...stripeSettings.shape,
  ...lifecycleSettings.shape,
});

/** The worker: workflows, activities (every provider, the characters service) and the Nexus handlers. */
export const workerSchema = z.object({
  ...processSettings.shape,
  ...temporalSettings.shape,
  ...workerSettings.shape,
  ...someOf(codecSettings, 'PAYLOAD_CODEC_KEYS'),
  ...nexusSettings.shape,
  ...providerSettings.shape,
  ...paypalSettings.shape,
  ...stripeSettings.shape,
  ...someOf(sandboxSettings, 'SANDBOX_PORT'),
  ...someOf(webhookSettings, 'WEBHOOK_CERT_HOSTS', 'WEBHOOK_LISTENER_URL'),
  ...someOf(apiSettings, 'API_PORT'),
  ...someOf(charactersSettings, 'CHARACTERS_URL', 'CHARACTERS_PORT', 'CHARACTERS_API_KEYS'),
  ...lifecycleSettings.shape,
});

/** The payments sandbox: it accepts PayPal's credentials and signs Stripe's events as the service expects. */
export const sandboxSchema = z.object({
  ...processSettings.shape,
  ...sandboxSettings.shape,
  ...providerSettings.shape,
  ...paypalSettings.shape,
  ...stripeSettings.shape,
});

/** The characters service: its port, its store and its keys; none of the payments settings. */
export const charactersSchema = z.object({
  ...processSettings.shape,
  ...someOf(
    charactersSettings,
    'CHARACTERS_PORT',
    'DATABASE_URL',
    'CHARACTERS_DATA_DIR',
    'CHARACTERS_API_KEYS',
  ),
});

/** `npm start`: the ports it claims, the dev server, the sandboxes it runs, the webhook subscription it makes. */
export const localStackSchema = z.object({
  ...processSettings.shape,
  ...temporalSettings.shape,
  ...devServerSettings.shape,
  ...someOf(workerSettings, 'WORKER_METRICS_PORT'),
  ...someOf(codecSettings, 'PAYLOAD_CODEC_KEYS'),
  ...someOf(nexusSettings, 'NEXUS_ENDPOINT_KEYS'),
  ...someOf(providerSettings, 'PAYMENTS_PROVIDER'),
  ...someOf(paypalSettings, 'PAYPAL_BASE_URL'),
  ...someOf(stripeSettings, 'STRIPE_BASE_URL'),
  ...someOf(sandboxSettings, 'SANDBOX_PORT', 'STRIPE_SANDBOX_PORT'),
  ...someOf(apiSettings, 'API_PORT', 'API_METRICS_PORT'),
  ...someOf(webhookSettings, 'WEBHOOK_CERT_HOSTS', 'WEBHOOK_LISTENER_URL'),
  ...someOf(charactersSettings, 'CHARACTERS_PORT'),
});

/** The programs the configuration reference names as readers of each variable. */
export const programSchemas = {
  API: apiSchema,
  worker: workerSchema,
  sandbox: sandboxSchema,
  characters: charactersSchema,
  '`npm start`': localStackSchema,
} as const;

/**
 * Every variable of every piece: what the tools read that drive the whole service (npm run cluster, the
 * benches, the one-shot commands, the tests).
 */
export const configSchema = z.object({
  ...processSettings.shape,
  ...temporalSettings.shape,
  ...devServerSettings.shape,
  ...workerSettings.shape,
  ...providerSettings.shape,
  ...paypalSettings.shape,
  ...stripeSettings.shape,
  ...sandboxSettings.shape,
  ...apiSettings.shape,
  ...webhookSettings.shape,
  ...codecSettings.shape,
  ...nexusSettings.shape,
  ...lifecycleSettings.shape,
  ...charactersSettings.shape,
});

export type Config = z.infer<typeof configSchema>;

/** The names the schemas know; docker-compose.yml is checked against them. */
export const configVariableNames = Object.keys(configSchema.shape);
