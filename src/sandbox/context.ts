import type { Logger } from 'pino';
import type { AccessTokens } from './access-tokens';
import type { SigningCertificate } from './certificate';
import type { WebhookDeliveries } from './deliveries';
import type { FaultInjector } from './faults';
import type { RequestIdempotency } from './idempotency';
import type { AuthorizationLedger } from './ledger';
import type { RefundLedger } from './refunds';
import type { SandboxMode } from './resources';
import type { WebhookRegistry } from './webhooks';

/** Everything one running sandbox holds; the route modules receive it. */
export interface SandboxContext {
  mode: SandboxMode;
  ledger: AuthorizationLedger;
  refunds: RefundLedger;
  webhooks: WebhookRegistry;
  deliveries: WebhookDeliveries;
  faults: FaultInjector;
  tokens: AccessTokens;
  idempotency: RequestIdempotency;
  certificate: SigningCertificate;
  credentials: { clientId: string; clientSecret: string };
  /** The base URL links and the certificate URL point to; known once the server listens. */
  baseUrl: () => string;
  certificateUrl: () => string;
  now: () => Date;
  log: Logger;
}
