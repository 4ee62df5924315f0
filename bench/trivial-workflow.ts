import { condition, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';

// The floor of history events: a workflow that starts and completes, with nothing in between.
export async function trivialWorkflow(): Promise<void> {}

/** Answers from memory: the floor of an Update's round trip through the server and a worker. */
export const noopUpdate = defineUpdate<null>('noop');
export const closeSignal = defineSignal('close');

/** An open workflow that answers no-op Updates until it is told to close. */
export async function openWorkflow(): Promise<void> {
  let closing = false;
  setHandler(noopUpdate, () => null);
  setHandler(closeSignal, () => {
    closing = true;
  });
  await condition(() => closing);
}
