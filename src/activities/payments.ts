import { ApplicationFailure } from '@temporalio/common';
import type { PaymentsClient } from '../providers/paypal/client';
import { count, type BusinessCounter, type CallOutcome } from './business-metrics';
import { PaymentsApiError, providerIssue } from '../providers/paypal/errors';
import type {
  Authorization,
  CreateWebhookRequest,
  PaymentCapture,
  PaymentCaptureRequest,
  Refund,
  RefundRequest,
  Webhook,
  WebhookEventTypes,
  WebhookField,
  WebhookList,
} from '../providers/paypal/schemas';

export const MISSING_REQUEST_ID = 'MISSING_REQUEST_ID';

/** Capture and refund take a request id without fail: it makes every retry of the activity act at most once. */
function requireRequestId(activity: string, requestId: string): void {
  if (requestId) return;
  throw ApplicationFailure.create({
    type: MISSING_REQUEST_ID,
    message: `${activity} needs a non-empty requestId so that its retries never move money twice`,
    nonRetryable: true,
  });
}

/** One activity per call of interfaces A and B; every argument and result is plain JSON. */
export function createPaymentsActivities(client: PaymentsClient) {
  return {
    getAuthorization: (authorizationId: string): Promise<Authorization> =>
      callProvider(() => client.getAuthorization(authorizationId)),

    /** The request id is mandatory here: it makes every retry of this activity capture at most once. */
    captureAuthorization: async (input: {
      authorizationId: string;
      request: PaymentCaptureRequest;
      requestId: string;
    }): Promise<PaymentCapture> => {
      requireRequestId('captureAuthorization', input.requestId);
      return await callProvider(
        () => client.captureAuthorization(input.authorizationId, input.request, input.requestId),
        'capture',
        'captures',
      );
    },

    /** Like capture, the request id is mandatory: every retry of this activity refunds at most once. */
    refundCapture: async (input: {
      captureId: string;
      request: RefundRequest;
      requestId: string;
    }): Promise<Refund> => {
      requireRequestId('refundCapture', input.requestId);
      return await callProvider(
        () => client.refundCapture(input.captureId, input.request, input.requestId),
        'refund',
      );
    },

    /** With `requestId`, every retry voids at most once (some recorded histories schedule it without one). */
    voidAuthorization: (authorizationId: string, requestId?: string): Promise<Authorization> =>
      callProvider(() => client.voidAuthorization(authorizationId, requestId), 'void', 'voids'),

    /** With `requestId`, every retry holds at most once (some recorded histories schedule it without one). */
    reauthorizeAuthorization: (input: {
      authorizationId: string;
      amount: { currency: string; total: string };
      requestId?: string;
    }): Promise<Authorization> =>
      callProvider(
        () => client.reauthorizeAuthorization(input.authorizationId, input.amount, input.requestId),
        'reauthorize',
        'reauthorizations',
      ),

    createWebhook: (request: CreateWebhookRequest): Promise<Webhook> =>
      callProvider(() => client.createWebhook(request)),

    getWebhook: (webhookId: string): Promise<Webhook> => callProvider(() => client.getWebhook(webhookId)),

    updateWebhook: (input: { webhookId: string; fields: WebhookField[] }): Promise<Webhook> =>
      callProvider(() => client.updateWebhook(input.webhookId, input.fields)),

    listWebhooks: (anchorType?: string): Promise<WebhookList> =>
      callProvider(() => client.listWebhooks(anchorType)),

    deleteWebhook: (webhookId: string): Promise<void> => callProvider(() => client.deleteWebhook(webhookId)),

    listWebhookEventTypes: (): Promise<WebhookEventTypes> =>
      callProvider(() => client.listWebhookEventTypes()),
  };
}

export type PaymentsActivities = ReturnType<typeof createPaymentsActivities>;

/** One provider call; `operation` names it in the refusal counter, `outcomes` counts how it ended. */
export async function callProvider<T>(
  call: () => Promise<T>,
  operation?: string,
  outcomes?: BusinessCounter,
): Promise<T> {
  let outcome: CallOutcome = 'succeeded';
  try {
    return await call();
  } catch (error) {
    const failure = paymentsFailure(error);
    outcome = failure instanceof ApplicationFailure && failure.nonRetryable ? 'refused' : 'failed';
    if (outcome === 'refused' && operation) {
      count('providerRefusals', { issue: (failure as ApplicationFailure).type ?? 'UNKNOWN', operation });
    }
    throw failure;
  } finally {
    if (outcomes) count(outcomes, { outcome });
  }
}

/**
 * The one mapping of client errors to Temporal. A refusal becomes a non-retryable failure typed by the
 * provider's issue (e.g. AUTHORIZATION_ALREADY_CAPTURED) so workflows can branch on it; a transient error
 * stays retryable, and the provider's Retry-After overrides the retry policy's next delay.
 */
export function paymentsFailure(error: unknown): unknown {
  if (!(error instanceof PaymentsApiError)) return error;
  const details = [
    {
      kind: error.kind,
      status: error.status,
      name: error.name,
      debugId: error.debugId,
      details: error.details,
    },
  ];
  if (!error.retryable) {
    return ApplicationFailure.create({
      type: providerIssue(error),
      message: error.message,
      nonRetryable: true,
      details,
    });
  }
  return ApplicationFailure.create({
    type: error.name,
    message: error.message,
    nonRetryable: false,
    details,
    ...(error.retryAfterMs !== undefined && { nextRetryDelay: error.retryAfterMs }),
  });
}
