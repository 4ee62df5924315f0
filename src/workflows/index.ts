// Every workflow the worker hosts, and the versioning behaviour of each (docs/deploying.md). Each file here is
// deterministic code only.
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { importCharacters } from './character-import/workflow';
import { authorizationLifecycle } from './lifecycle/workflow';
import { paymentOutcome } from './payment-outcome/workflow';
import { webhookVerification } from './webhooks/verification';
import { ensureWebhookSubscription, removeWebhookSubscription } from './webhooks/subscription';

/**
 * Declares the behaviour only where the run's task is versioned (a deployment name: an unversioned worker's
 * version has a build id only): an unversioned worker (`npm start`, the tests) must name none, or the server
 * refuses its task completions. A versioned worker replaying a run whose first task was unversioned falls
 * back to its default, AUTO_UPGRADE (src/workers/deployment-version.ts).
 */
const versioned = (versioningBehavior: 'PINNED' | 'AUTO_UPGRADE') => () =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {};

// Runs that outlive any deploy (a lifecycle sleeps about 3 days on its reauthorization timer, an outcome wait
// up to its authorization's expiry) move to the current version at their next workflow task: every change to
// them follows the patch policy (docs/deploying.md) and is proved by the replay histories (test/histories/).
setWorkflowOptions(versioned('AUTO_UPGRADE'), authorizationLifecycle);
setWorkflowOptions(versioned('AUTO_UPGRADE'), paymentOutcome);
// Runs of seconds or minutes stay on the version that started them: their code may change freely, and the
// old version drains when the last of them ends.
setWorkflowOptions(versioned('PINNED'), webhookVerification);
setWorkflowOptions(versioned('PINNED'), importCharacters);
setWorkflowOptions(versioned('PINNED'), ensureWebhookSubscription);
setWorkflowOptions(versioned('PINNED'), removeWebhookSubscription);

export {
  authorizationLifecycle,
  importCharacters,
  webhookVerification,
  ensureWebhookSubscription,
  removeWebhookSubscription,
  paymentOutcome,
};
