import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from './context';
import type { DeliveryEvent, DeliverySigner } from './deliveries';
import type { ErrorBody } from './errors';
import type { AuthorizationRecord, CaptureRecord, LedgerEvent, RefundRecord } from './records';
import type { EventTypeList, WebhookRecord } from './webhooks';

/**
 * A provider's contract over the shared core: its routes, the shapes of its resources, events and errors,
 * and how it signs a delivery. Each provider's folder under src/sandbox/ builds one; modes.ts registers it.
 */
export interface SandboxMode {
  /** The provider's own routes (authentication, payments, webhooks), beside the core's control API. */
  registerRoutes(app: FastifyInstance): Promise<void>;
  /** The provider's JSON for each record, as its routes and the control API answer it. */
  authorizationResource(record: AuthorizationRecord): unknown;
  captureResource(record: CaptureRecord): unknown;
  refundResource(record: RefundRecord): unknown;
  webhookResource(record: WebhookRecord): unknown;
  /** The provider's id for a new webhook subscription; PayPal's form when the mode has none of its own. */
  newWebhookId?(): string;
  /** The names of a subscription's event types; a 400 naming `field` for one the provider does not have. */
  eventTypeNames(list: EventTypeList, field: string): string[];
  /** The event the provider delivers for a change in the books. */
  deliveryEvent(event: LedgerEvent): DeliveryEvent;
  signDelivery: DeliverySigner;
  /** The provider's body for an error answer. */
  errorBody(error: ErrorBody): unknown;
  /** What a listener checks this sandbox's delivery signatures with. */
  deliveryVerification(): { certificateUrl: string; certificatePem: string };
}

/** Builds a provider mode over a sandbox's core, once per start; `options` are the ones startSandbox got. */
export type SandboxModeFactory<Options> = (context: SandboxContext, options: Options) => Promise<SandboxMode>;
