import { proxyActivities } from '@temporalio/workflow';

export interface SmokeActivities {
  greet(name: string): Promise<string>;
}

const { greet } = proxyActivities<SmokeActivities>({ startToCloseTimeout: '10 seconds' });

/** Calls one activity and returns its answer: proves worker, server and bundle work together. */
export async function smokeWorkflow(name: string): Promise<string> {
  return `workflow saw: ${await greet(name)}`;
}
