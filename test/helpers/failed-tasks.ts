import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { eventually } from './eventually';
import { testCodec } from './temporal';

/** The message of the first workflow task of a run that failed, once one has; `what` names the wait. */
export async function firstFailedTaskMessage(handle: WorkflowHandle, what: string): Promise<string> {
  const failure = await eventually(
    async () =>
      (await handle.fetchHistory()).events?.find((event) => event.workflowTaskFailedEventAttributes)
        ?.workflowTaskFailedEventAttributes?.failure,
    Boolean,
    { what },
  );
  // The failure's message travels encrypted, as every payload does (encodeCommonAttributes).
  const [attributes] = await testCodec.decode([failure!.encodedAttributes!]);
  return defaultPayloadConverter.fromPayload<{ message: string }>(attributes!).message;
}
