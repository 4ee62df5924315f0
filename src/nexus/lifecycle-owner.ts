import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { LifecycleClient } from '../client/lifecycle-client';
import { lifecycleWorkflowId, type LifecycleInput } from '../workflows/lifecycle/definitions';

/**
 * The owner of the lifecycle of an authorization; null when there is none (or it has no owner). A lifecycle
 * still reading its authorization, or that failed doing so, has no state to ask: its start input names it.
 */
export async function lifecycleOwner(
  client: Client,
  taskQueue: string,
  authorizationId: string,
): Promise<string | null> {
  const state = await new LifecycleClient(client, taskQueue).state(authorizationId);
  if (state) return state.owner ?? null;
  try {
    const history = await client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).fetchHistory();
    let payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
    for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
    const input = payloads[0] && payloadConverter.fromPayload<LifecycleInput>(payloads[0]);
    return input?.owner ?? null;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}
