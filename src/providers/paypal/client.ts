import type { AxiosRequestConfig } from 'axios';
import type { z } from 'zod';
import type { Config } from '../../config';

/** The settings PayPal's client is built from. */
export type PayPalClientSettings = Pick<
  Config,
  | 'PAYPAL_BASE_URL'
  | 'PAYPAL_DIALECT'
  | 'PAYPAL_CLIENT_ID'
  | 'PAYPAL_CLIENT_SECRET'
  | 'PAYPAL_ACCESS_TOKEN'
  | 'PAYMENTS_TIMEOUT_MS'
>;
import { accessTokenSource, type AccessTokenSource, type PaymentsCredentials } from './auth';
import { paymentsDialect, type PaymentsDialect, type PaymentsDialectName } from './dialects';
import { describeIssues } from '../parsing';
import { PaymentsApiError, providerError, providerIssue } from './errors';
import {
  createProviderHttp,
  sendToProvider,
  type PaymentsLogger,
  type ProviderHttp,
  type ProviderResponse,
} from './http-transport';
import {
  authorizationBodySchema,
  authorizationSchema,
  createWebhookRequestSchema,
  paymentCaptureBodySchema,
  paymentCaptureRequestSchema,
  paymentCaptureSchema,
  reauthorizationAmountSchema,
  refundRequestSchema,
  refundSchema,
  verifyWebhookResponseSchema,
  webhookEventTypesSchema,
  webhookFieldSchema,
  webhookListSchema,
  webhookSchema,
  type Authorization,
  type CreateWebhookRequest,
  type PaymentCapture,
  type PaymentCaptureRequest,
  type ReauthorizationAmount,
  type Refund,
  type RefundRequest,
  type VerifyWebhookResponse,
  type Webhook,
  type WebhookEventTypes,
  type WebhookField,
  type WebhookList,
} from './schemas';
import type { WebhookDelivery } from '../webhook-delivery';
import { webhookVerificationRequestBody } from './webhook-verification-request';

export const DEFAULT_ANCHOR_TYPE = 'APPLICATION';
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface PayPalClientOptions {
  baseUrl: string;
  dialect?: PaymentsDialectName;
  credentials: PaymentsCredentials;
  timeoutMs?: number;
  logger?: PaymentsLogger;
}

const webhookFieldsSchema = webhookFieldSchema.array().min(1);

/**
 * Typed client for interfaces A (authorizations) and B (webhooks) of the payments spec.
 *
 * The provider's contract says a failed operation yields "an empty resource together with an error". In TypeScript
 * every operation instead rejects with a {@link PaymentsApiError} and yields no resource at all; a resolved
 * value is always a complete, validated resource.
 */
export class PayPalClient {
  readonly dialect: PaymentsDialect;
  private readonly http: ProviderHttp;
  private readonly tokens: AccessTokenSource;

  constructor(options: PayPalClientOptions) {
    this.dialect = paymentsDialect(options.dialect);
    this.http = createProviderHttp(options.baseUrl, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.logger);
    this.tokens = accessTokenSource(this.http, options.credentials);
  }

  async getAuthorization(authorizationId: string): Promise<Authorization> {
    const operation = 'getAuthorization';
    return await this.readResource(operation, 'Authorization', authorizationSchema, {
      method: 'GET',
      url: authorizationPath(operation, authorizationId),
    });
  }

  async getCapture(captureId: string): Promise<PaymentCapture> {
    const operation = 'getCapture';
    return await this.readResource(operation, 'PaymentCapture', paymentCaptureSchema, {
      method: 'GET',
      url: `/v2/payments/captures/${pathSegment(operation, 'capture id', captureId)}`,
    });
  }

  async getRefund(refundId: string): Promise<Refund> {
    const operation = 'getRefund';
    return await this.readResource(operation, 'Refund', refundSchema, {
      method: 'GET',
      url: `/v2/payments/refunds/${pathSegment(operation, 'refund id', refundId)}`,
    });
  }

  /** A non-empty `requestId` makes the capture idempotent: a repeat returns the first capture. */
  async captureAuthorization(
    authorizationId: string,
    request: PaymentCaptureRequest,
    requestId?: string,
  ): Promise<PaymentCapture> {
    const operation = 'captureAuthorization';
    const response = await this.sendChange(operation, requestId, {
      method: 'POST',
      url: `${authorizationPath(operation, authorizationId)}/capture`,
      data: validRequest(operation, paymentCaptureRequestSchema, request),
    });
    return await completed(
      operation,
      'PaymentCapture',
      response,
      paymentCaptureBodySchema,
      paymentCaptureSchema,
      (id) => this.getCapture(id),
    );
  }

  /**
   * Answers the voided authorization, read again when the provider answers 204 or without a body. An
   * authorization already voided counts as voided: a retry whose first answer was lost gets
   * PREVIOUSLY_VOIDED, and its own void is what it finds.
   */
  async voidAuthorization(authorizationId: string, requestId?: string): Promise<Authorization> {
    const operation = 'voidAuthorization';
    let response: ProviderResponse;
    try {
      response = await this.sendChange(operation, requestId, {
        method: 'POST',
        url: `${authorizationPath(operation, authorizationId)}/void`,
      });
    } catch (error) {
      if (
        error instanceof PaymentsApiError &&
        error.status === 422 &&
        providerIssue(error) === 'PREVIOUSLY_VOIDED'
      )
        return await this.getAuthorization(authorizationId);
      throw error;
    }
    if (response.status === 204 || response.body.trim() === '')
      return await this.getAuthorization(authorizationId);
    return await this.completeAuthorization(operation, response);
  }

  async reauthorizeAuthorization(
    authorizationId: string,
    amount: ReauthorizationAmount,
    requestId?: string,
  ): Promise<Authorization> {
    const operation = 'reauthorizeAuthorization';
    const response = await this.sendChange(operation, requestId, {
      method: 'POST',
      url: `${authorizationPath(operation, authorizationId)}/reauthorize`,
      data: this.dialect.reauthorizeBody(validRequest(operation, reauthorizationAmountSchema, amount)),
    });
    return await this.completeAuthorization(operation, response);
  }

  /**
   * Refunds a capture: all that is not yet refunded when `request` has no amount. A non-empty `requestId`
   * makes it idempotent: a repeat returns the first refund. PayPal's minimal answer (id, status, links) is
   * accepted as it is.
   */
  async refundCapture(captureId: string, request: RefundRequest, requestId?: string): Promise<Refund> {
    const operation = 'refundCapture';
    const response = await this.sendChange(operation, requestId, {
      method: 'POST',
      url: `/v2/payments/captures/${pathSegment(operation, 'capture id', captureId)}/refund`,
      data: validRequest(operation, refundRequestSchema, request),
    });
    return parseResource(operation, 'Refund', refundSchema, response);
  }

  async createWebhook(request: CreateWebhookRequest): Promise<Webhook> {
    const operation = 'createWebhook';
    return await this.readResource(operation, 'Webhook', webhookSchema, {
      method: 'POST',
      url: WEBHOOKS_PATH,
      data: validRequest(operation, createWebhookRequestSchema, request),
    });
  }

  async getWebhook(webhookId: string): Promise<Webhook> {
    const operation = 'getWebhook';
    return await this.readResource(operation, 'Webhook', webhookSchema, {
      method: 'GET',
      url: webhookPath(operation, webhookId),
    });
  }

  /** Sends `fields` as a JSON Patch array, e.g. `[{ op: 'replace', path: '/url', value: '…' }]`. */
  async updateWebhook(webhookId: string, fields: WebhookField[]): Promise<Webhook> {
    const operation = 'updateWebhook';
    return await this.readResource(operation, 'Webhook', webhookSchema, {
      method: 'PATCH',
      url: webhookPath(operation, webhookId),
      data: validRequest(operation, webhookFieldsSchema, fields),
    });
  }

  /** Always sends `anchor_type`; none or an empty one means {@link DEFAULT_ANCHOR_TYPE}. */
  async listWebhooks(anchorType?: string): Promise<WebhookList> {
    return await this.readResource('listWebhooks', 'WebhookList', webhookListSchema, {
      method: 'GET',
      url: WEBHOOKS_PATH,
      params: { anchor_type: anchorType || DEFAULT_ANCHOR_TYPE },
    });
  }

  /** Resolves once the provider accepts the deletion; the response body is never read. */
  async deleteWebhook(webhookId: string): Promise<void> {
    const operation = 'deleteWebhook';
    await this.send(operation, { method: 'DELETE', url: webhookPath(operation, webhookId) }, 'on-error');
  }

  /**
   * Asks the provider to verify a delivery's signature. Refused before any request when the delivery has
   * no body. The delivery body is embedded byte for byte; the delivery itself is left as it was.
   */
  async verifyWebhookSignature(delivery: WebhookDelivery, webhookId: string): Promise<VerifyWebhookResponse> {
    const operation = 'verifyWebhookSignature';
    const body = webhookVerificationRequestBody(delivery, webhookId, this.dialect.transmissionHeaders);
    return await this.readResource(operation, 'VerifyWebhookResponse', verifyWebhookResponseSchema, {
      method: 'POST',
      url: '/v1/notifications/verify-webhook-signature',
      headers: { 'Content-Type': 'application/json' },
      data: body,
    });
  }

  async listWebhookEventTypes(): Promise<WebhookEventTypes> {
    return await this.readResource('listWebhookEventTypes', 'WebhookEventTypes', webhookEventTypesSchema, {
      method: 'GET',
      url: '/v1/notifications/webhooks-event-types',
    });
  }

  private async readResource<S extends z.ZodType>(
    operation: string,
    resource: string,
    schema: S,
    request: AxiosRequestConfig,
  ): Promise<z.infer<S>> {
    return parseResource(operation, resource, schema, await this.send(operation, request));
  }

  private async completeAuthorization(operation: string, response: ProviderResponse): Promise<Authorization> {
    return await completed(
      operation,
      'Authorization',
      response,
      authorizationBodySchema,
      authorizationSchema,
      (id) => this.getAuthorization(id),
    );
  }

  /**
   * The one way a state-changing call (capture, void, reauthorize, refund) is sent: it asks for the whole
   * resource, `Prefer: return=representation` (PayPal answers minimal by default), and carries a non-empty
   * `requestId` in the dialect's request-id header, so that a retry replays the first answer instead of
   * acting again.
   */
  private async sendChange(
    operation: string,
    requestId: string | undefined,
    request: AxiosRequestConfig,
  ): Promise<ProviderResponse> {
    return await this.send(operation, {
      ...request,
      headers: {
        ...request.headers,
        Prefer: 'return=representation',
        ...(requestId && { [this.dialect.requestIdHeader]: headerValue(operation, 'request id', requestId) }),
      },
    });
  }

  /** Sends with the current bearer token; after a 401, once more with a fresh one if the source has one. */
  private async send(
    operation: string,
    request: AxiosRequestConfig,
    readBody: 'always' | 'on-error' = 'always',
  ): Promise<ProviderResponse> {
    const token = await this.tokens.accessToken();
    let response = await sendToProvider(this.http, operation, withBearer(request, token), readBody);
    if (response.status === 401) {
      const fresh = await this.tokens.tokenAfterRejection(token);
      if (fresh !== undefined) {
        response = await sendToProvider(this.http, operation, withBearer(request, fresh), readBody);
      }
    }
    if (response.status < 200 || response.status >= 300) {
      throw providerError(operation, response.status, response.headers, response.body);
    }
    return response;
  }
}

/** The client's options from the config; `baseUrl` (e.g. the embedded sandbox's) wins over the config. */
export function paypalClientOptionsFromConfig(
  config: PayPalClientSettings,
  baseUrl?: string,
  logger?: PaymentsLogger,
): PayPalClientOptions {
  const url = baseUrl ?? config.PAYPAL_BASE_URL;
  if (!url) throw new Error('PAYPAL_BASE_URL is not set and no provider base URL was given');
  return {
    baseUrl: url,
    dialect: config.PAYPAL_DIALECT,
    credentials: config.PAYPAL_ACCESS_TOKEN
      ? { accessToken: config.PAYPAL_ACCESS_TOKEN }
      : { clientId: config.PAYPAL_CLIENT_ID, clientSecret: config.PAYPAL_CLIENT_SECRET },
    timeoutMs: config.PAYMENTS_TIMEOUT_MS,
    ...(logger && { logger }),
  };
}

/** The client for the configured provider; `baseUrl` (e.g. the embedded sandbox's) wins over the config. */
export function paypalClientFromConfig(
  config: PayPalClientSettings,
  baseUrl?: string,
  logger?: PaymentsLogger,
): PayPalClient {
  return new PayPalClient(paypalClientOptionsFromConfig(config, baseUrl, logger));
}

const WEBHOOKS_PATH = '/v1/notifications/webhooks';

function authorizationPath(operation: string, authorizationId: string): string {
  return `/v2/payments/authorizations/${pathSegment(operation, 'authorization id', authorizationId)}`;
}

function webhookPath(operation: string, webhookId: string): string {
  return `${WEBHOOKS_PATH}/${pathSegment(operation, 'webhook id', webhookId)}`;
}

// PayPal's ids are upper-case letters and digits; "_" and "-" are allowed for other providers' ids. Nothing
// else reaches a path with the merchant's token: ".", ".." or "a/b" would name another resource.
const resourceIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

function pathSegment(operation: string, what: string, value: string): string {
  if (resourceIdPattern.test(value)) return value;
  throw new PaymentsApiError({
    kind: 'invalid-request',
    message: `${operation}: the ${what} ${JSON.stringify(value)} is not a resource id: 1 to 64 letters, digits, "_" or "-"`,
  });
}

// Visible ASCII, inner spaces allowed. axios would silently drop CR and LF (sending another id than the
// one the capture is keyed by) and Node refuses other control characters only once the request is sent.
const headerSafe = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

function headerValue(operation: string, what: string, value: string): string {
  if (headerSafe.test(value)) return value;
  throw new PaymentsApiError({
    kind: 'invalid-request',
    message: `${operation}: the ${what} ${JSON.stringify(value)} cannot be sent as a header: printable ASCII without leading or trailing spaces`,
  });
}

function withBearer(request: AxiosRequestConfig, token: string): AxiosRequestConfig {
  return { ...request, headers: { ...request.headers, Authorization: `Bearer ${token}` } };
}

function validRequest<S extends z.ZodType>(operation: string, schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new PaymentsApiError({
    kind: 'invalid-request',
    message: `${operation}: invalid request: ${describeIssues(parsed.error)}`,
  });
}

/**
 * The resource an answer holds, parsed by PayPal's schema (every field optional) and read again by its id
 * when it leaves out what the client promises (`complete`). An answer without an id cannot be read again.
 */
async function completed<S extends z.ZodType>(
  operation: string,
  resource: string,
  response: ProviderResponse,
  body: z.ZodType<{ id?: string | undefined }>,
  complete: S,
  readAgain: (id: string) => Promise<z.infer<S>>,
): Promise<z.infer<S>> {
  const answered = parseResource(operation, resource, body, response);
  const whole = complete.safeParse(answered);
  if (whole.success) return whole.data;
  if (answered.id) return await readAgain(answered.id);
  throw new PaymentsApiError({
    kind: 'invalid-response',
    status: response.status,
    message: `${operation}: the provider's ${resource} lacks fields the client needs and has no id to read it by`,
  });
}

function parseResource<S extends z.ZodType>(
  operation: string,
  resource: string,
  schema: S,
  response: ProviderResponse,
): z.infer<S> {
  const invalid = (problem: string) =>
    new PaymentsApiError({
      kind: 'invalid-response',
      status: response.status,
      message: `${operation}: the provider's ${resource} is invalid: ${problem}`,
    });
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch {
    throw invalid('the body is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalid(describeIssues(parsed.error));
  return parsed.data;
}
