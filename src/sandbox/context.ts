import type { Logger } from 'pino';
import type { AccessTokens } from './access-tokens';
import type { WebhookDeliveries } from './deliveries';
import type { FaultInjector } from './faults';
import type { RequestIdempotency } from './idempotency';
import type { AuthorizationLedger } from './ledger';
import type { RefundLedger } from './refunds';
import type { WebhookRegistry } from './webhooks';

/** The shared core one running sandbox holds, whatever contract it answers by; every route receives it. */
export interface SandboxContext {
  ledger: AuthorizationLedger;
  refunds: RefundLedger;
  webhooks: WebhookRegistry;
  deliveries: WebhookDeliveries;
  faults: FaultInjector;
  tokens: AccessTokens;
  idempotency: RequestIdempotency;
  credentials: { clientId: string; clientSecret: string };
  /** The base URL links point to; known once the server listens. */
  baseUrl: () => string;
  now: () => Date;
  log: Logger;
}
