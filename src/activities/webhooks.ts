import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import type { ParsedPaymentEvent, PaymentEvent, SignatureCheck } from '../providers/events';
import type { PaymentsProvider } from '../providers/port';
import { subscriptionLookup } from '../providers/subscription-lookup';
import type { WebhookDelivery } from '../providers/webhook-delivery';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  stateQuery,
  terminalStatuses,
  type LifecycleState,
} from '../workflows/lifecycle/definitions';
import type { PaymentEventRouted } from '../workflows/webhooks/definitions';
import { underProviderNames, type ProviderName } from '../provider-names';
import { reopenForEvent } from '../client/lifecycle-starts';
import { count } from './business-metrics';
import { callProvider, paymentsFailure } from './payments';

export interface WebhookActivityOptions {
  provider: PaymentsProvider;
  /** The listener's public URL: its subscription's id verifies deliveries when no WEBHOOK_ID is set. */
  listenerUrl?: string;
  anchorType?: string;
}

/** A delivery, its body as the exact text the listener received, and the subscription it was signed for. */
interface SignatureVerification {
  delivery: WebhookDelivery<string>;
  webhookId: string;
}

/** Activities of webhook verification: the signature check in either mode, the event's parsing and routing. */
export function createWebhookActivities(options: WebhookActivityOptions) {
  const { provider } = options;
  const subscribedWebhook = subscriptionLookup(provider, options.listenerUrl, options.anchorType);

  return {
    // The two verification modes (WEBHOOK_VERIFY_MODE), which the webhookVerification run chooses between.
    // Both answer SUCCESS or FAILURE alike for the same delivery.

    /** 'api': the provider checks the signature through its API; the body is passed on unchanged. */
    verifyWebhookSignature: async (input: SignatureVerification): Promise<SignatureCheck> => {
      const response = await callProvider(
        () => provider.verifyDelivery(input.delivery, input.webhookId, 'api'),
        'verify',
      );
      count('webhookVerifications', { outcome: response.verification_status, mode: 'api' });
      return response;
    },

    /**
     * 'local': the same check without asking the provider, by the provider's signature scheme, which its
     * adapter implements (with whatever keys or certificates it trusts and caches).
     */
    verifyWebhookSignatureLocally: async (input: SignatureVerification): Promise<SignatureCheck> => {
      const check = await provider.verifyDelivery(input.delivery, input.webhookId, 'local');
      count('webhookVerifications', { outcome: check.verification_status, mode: 'local' });
      return check;
    },

    /** Parsing (zod) stays out of the workflow sandbox; the result is plain JSON. */
    parsePaymentEvent: async (body: string): Promise<ParsedPaymentEvent> => provider.parsePaymentEvent(body),

    /**
     * Signals a verified event to a lifecycle: when Temporal accepted the signal, or null when that lifecycle
     * is not running (never started, or closed).
     */
    signalPaymentEvent: async (input: {
      workflowId: string;
      event: PaymentEvent;
    }): Promise<string | null> => {
      try {
        await Context.current()
          .client.workflow.getHandle(input.workflowId)
          .signal(paymentEventSignal, input.event);
        return new Date().toISOString();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return null;
        throw error;
      }
    },

    /**
     * The running lifecycle that holds an authorization id, when it is not the one the lifecycle started
     * with (a reauthorization): found through the AuthorizationIds search attribute.
     */
    findLifecycleOfAuthorization: (authorizationId: string): Promise<string | null> =>
      runningLifecycleListing('AuthorizationIds', authorizationId),

    /** The authorization a capture was taken from, as the provider links it; null when it does not. */
    authorizationOfCapture: async (captureId: string): Promise<string | null> => {
      try {
        return (
          (await callProvider(() => provider.getCapture(captureId), 'getCapture')).authorization_id ?? null
        );
      } catch (error) {
        if (error instanceof ApplicationFailure && error.nonRetryable) return null;
        throw error;
      }
    },

    /**
     * Hands a refund or reversal event to the closed lifecycle of `authorizationId`: a lifecycle that ended
     * (CAPTURED, REFUNDED, …) is reopened from its final state with the event (signal-with-start); one that
     * has already seen the event is not. A lifecycle that closed before it ended (failed, terminated) is not
     * reopened: the event is unrouted, with why.
     */
    reopenLifecycleForEvent: async (input: {
      authorizationId: string;
      event: PaymentEvent;
    }): Promise<PaymentEventRouted> => {
      const { authorizationId, event } = input;
      const { client, info } = Context.current();
      const unrouted = (why: string): PaymentEventRouted => ({
        routed: false,
        reason: `${why}, for ${event.eventType} ${event.id}`,
      });
      const holding = await lifecycleHolding(authorizationId);
      if (!holding) return unrouted(`no lifecycle holds authorization ${authorizationId}`);
      const { workflowId, status, runId } = holding;
      // This run, not a run that another event may have reopened since.
      const handle = client.workflow.getHandle(workflowId, runId, { followRuns: false });
      const delivered = { routed: true as const, lifecycleWorkflowId: workflowId };
      if (status.name === 'RUNNING') {
        await handle.signal(paymentEventSignal, event);
        return { ...delivered, signalledAt: new Date().toISOString() };
      }
      // A lifecycle fails only while it starts (a refusal to adopt): it holds nothing, and a query would keep
      // this delivery waiting on a worker to replay it.
      if (status.name === 'FAILED') return unrouted(`lifecycle ${workflowId} closed FAILED while starting`);
      const state: LifecycleState | null =
        status.name === 'COMPLETED'
          ? ((await handle.result()) as LifecycleState)
          : await handle.query(stateQuery);
      if (!state || !terminalStatuses.includes(state.status)) {
        return unrouted(`lifecycle ${workflowId} closed ${status.name} while ${state?.status ?? 'starting'}`);
      }
      if (state.seenEventIds.includes(event.id)) {
        return { ...delivered, signalledAt: new Date().toISOString(), alreadyRecorded: true };
      }
      await reopenForEvent(client, info.taskQueue, state, event);
      return { ...delivered, signalledAt: new Date().toISOString() };
    },

    /** The id of the listener's subscription, or null when there is none (src/providers/subscription-lookup.ts). */
    subscribedWebhookId: async (): Promise<string | null> => {
      try {
        return (await subscribedWebhook()) ?? null;
      } catch (error) {
        throw paymentsFailure(error);
      }
    },
  };
}

/** The webhook activities that ask the delivery's provider; the others find and signal lifecycles, whoever's. */
export const webhookProviderCalls = [
  'verifyWebhookSignature',
  'verifyWebhookSignatureLocally',
  'parsePaymentEvent',
  'authorizationOfCapture',
  'subscribedWebhookId',
] as const;

/**
 * A provider's webhook calls under the names its deliveries' runs schedule them by (providerActivityName):
 * `paypal.verifyWebhookSignature`, `stripe.verifyWebhookSignatureLocally`, …
 */
export function createProviderWebhookActivities(options: WebhookActivityOptions): Record<string, unknown> {
  const activities = createWebhookActivities(options);
  const calls = Object.fromEntries(webhookProviderCalls.map((activity) => [activity, activities[activity]]));
  return underProviderNames(options.provider.name as ProviderName, calls);
}

/** The lifecycle of an authorization, running or closed, described: its own, or the one that reauthorized into it. */
async function lifecycleHolding(authorizationId: string): Promise<WorkflowExecutionDescription | null> {
  const { client } = Context.current();
  const describe = (workflowId: string) => client.workflow.getHandle(workflowId).describe();
  try {
    return await describe(lifecycleWorkflowId(authorizationId));
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  const query = `AuthorizationIds = '${authorizationId.replace(/'/g, '')}'`;
  for await (const run of client.workflow.list({ query, pageSize: 1 })) return describe(run.workflowId);
  return null;
}

/** The running workflow whose keyword-list search attribute lists `id`, if any. */
async function runningLifecycleListing(attribute: string, id: string): Promise<string | null> {
  const query = `${attribute} = '${id.replace(/'/g, '')}' AND ExecutionStatus = 'Running'`;
  for await (const run of Context.current().client.workflow.list({ query, pageSize: 1 })) {
    return run.workflowId;
  }
  return null;
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
