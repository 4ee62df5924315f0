import { paymentsDialect, type PaymentsDialectName } from '../../providers/paypal/dialects';
import { signedDeliveryHeaders } from '../../providers/paypal/webhook-signature';
import type { SandboxContext } from '../context';
import type { SandboxMode, SandboxModeFactory } from '../mode';
import { certificateUrl, createSigningCertificate, type SigningCertificate } from './certificate';
import type { PaypalContext } from './context';
import { errorBody } from './errors';
import { eventTypeNames } from './event-types';
import { webhookEvent } from './events';
import { authorizationResource, captureResource, refundResource, webhookResource } from './resources';
import { registerAuthorizationRoutes } from './routes-authorizations';
import { registerOAuthRoutes, requireBearerToken } from './routes-oauth';
import { registerPaypalControlRoutes } from './routes-control';
import { registerRefundRoutes } from './routes-refunds';
import { registerCertificateRoute, registerVerifyRoute } from './routes-verify';
import { registerWebhookRoutes } from './routes-webhooks';

export interface PaypalSandboxOptions {
  /** The key and certificate that sign deliveries; by default a fresh pair per start. */
  signingCertificate?: SigningCertificate;
}

/**
 * PayPal's contract in one of its two dialects: `spec` (as specified to us) or `paypal` (as PayPal
 * publishes it); docs/sandbox.md lists what differs.
 */
export function paypalSandboxMode(dialect: PaymentsDialectName): SandboxModeFactory<PaypalSandboxOptions> {
  return async (core: SandboxContext, options: PaypalSandboxOptions): Promise<SandboxMode> => {
    const certificate = options.signingCertificate ?? (await createSigningCertificate(core.now()));
    const context: PaypalContext = {
      ...core,
      dialect,
      certificate,
      certificateUrl: () => certificateUrl(core.baseUrl(), certificate.id),
    };
    const { transmissionHeaders } = paymentsDialect(dialect);

    return {
      registerRoutes: async (app) => {
        registerOAuthRoutes(app, context);
        registerCertificateRoute(app, context);
        registerPaypalControlRoutes(app, context);
        await app.register(async (authenticated) => {
          authenticated.addHook('onRequest', requireBearerToken(context.tokens, dialect));
          registerAuthorizationRoutes(authenticated, context);
          registerRefundRoutes(authenticated, context);
          registerWebhookRoutes(authenticated, context);
          await authenticated.register(async (verifyScope) => registerVerifyRoute(verifyScope, context));
        });
      },
      authorizationResource: (record) => authorizationResource(record, core.baseUrl(), dialect),
      captureResource: (record) =>
        captureResource(record, core.ledger.authorization(record.authorizationId), core.baseUrl()),
      refundResource: (record) => refundResource(record, core.baseUrl()),
      webhookResource: (record) => webhookResource(record, core.baseUrl()),
      eventTypeNames,
      deliveryEvent: (event) => {
        const envelope = webhookEvent(event, core.ledger, core.baseUrl(), core.now(), dialect);
        return { id: envelope.id, type: envelope.event_type, body: envelope };
      },
      signDelivery: (transmission) =>
        signedDeliveryHeaders({
          ...transmission,
          certUrl: context.certificateUrl(),
          privateKeyPem: certificate.privateKeyPem,
          headerNames: transmissionHeaders,
        }),
      errorBody,
      deliveryVerification: () => ({
        certificateUrl: context.certificateUrl(),
        certificatePem: certificate.certificatePem,
      }),
    };
  };
}
