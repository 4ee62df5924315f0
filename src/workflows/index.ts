// Every workflow the worker hosts. Each file here is deterministic code only.
export { authorizationLifecycle } from './lifecycle/workflow';
export { importCharacters } from './character-import/workflow';
export { webhookVerification } from './webhooks/verification';
export { ensureWebhookSubscription, removeWebhookSubscription } from './webhooks/subscription';
export { paymentOutcome } from './payment-outcome/workflow';
