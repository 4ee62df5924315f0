// The configuration: one schema per program (programs.ts) built from pieces that each define a concern's
// variables once; production's refusals (production.ts); the parse (load.ts).
export { DEV_API_KEY, apiCallers, apiHost } from './api';
export { codecCorsOrigins, codecOperatorTokens } from './codec';
export { certificateOriginUrl } from './forms';
export { lifecycleStartDefaults } from './lifecycle';
export {
  ConfigError,
  loadApiConfig,
  loadCharactersConfig,
  loadConfig,
  loadLocalStackConfig,
  loadSandboxConfig,
  loadWorkerConfig,
} from './load';
export {
  MIN_CLEAR_KEY_LENGTH,
  MIN_STRIPE_WEBHOOK_SECRET_CHARS,
  productionSettingsOf,
  type ProductionSetting,
} from './production';
export { configSchema, configVariableNames, type Config } from './programs';
export { SANDBOX_STRIPE_API_KEY, SANDBOX_STRIPE_WEBHOOK_SECRET } from './stripe';
