import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Failure messages and stack traces travel in the failure's encoded attributes, so the payload codec encrypts
 * them too (a provider's refusal message names what was refused). Loaded by path: the worker's workflow
 * bundle carries it (src/workers/workflow-bundle.ts).
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
