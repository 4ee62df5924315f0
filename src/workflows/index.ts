// Every workflow the worker hosts, and the versioning behaviour of each (docs/deploying.md). Each file here is
// deterministic code only.
import { setWorkflowOptions } from '@temporalio/workflow';
import { importCharacters } from './character-import/workflow';
import { authorizationLifecycle } from './lifecycle/workflow';
import { paymentOutcome } from './payment-outcome/workflow';
import { webhookVerification } from './webhooks/verification';
import { ensureWebhookSubscription, removeWebhookSubscription } from './webhooks/subscription';

// Runs that outlive any deploy (a lifecycle sleeps about 3 days on its reauthorization timer, an outcome wait
// up to its authorization's expiry) move to the current version at their next workflow task: every change to
// them is guarded by patched() and proved by the replay histories (test/histories/).
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, authorizationLifecycle);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, paymentOutcome);
// Runs of seconds or minutes stay on the version that started them: their code may change freely, and the
// old version drains when the last of them ends.
setWorkflowOptions({ versioningBehavior: 'PINNED' }, webhookVerification);
setWorkflowOptions({ versioningBehavior: 'PINNED' }, importCharacters);
setWorkflowOptions({ versioningBehavior: 'PINNED' }, ensureWebhookSubscription);
setWorkflowOptions({ versioningBehavior: 'PINNED' }, removeWebhookSubscription);

export {
  authorizationLifecycle,
  importCharacters,
  webhookVerification,
  ensureWebhookSubscription,
  removeWebhookSubscription,
  paymentOutcome,
};
