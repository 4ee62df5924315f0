// Every workflow the worker hosts. Each file here is deterministic code only.
export { authorizationLifecycle } from './lifecycle/workflow';
export * from './character-import';
export { webhookVerification } from './webhooks/verification';
export { ensureWebhookSubscription, removeWebhookSubscription } from './webhooks/subscription';
export { paymentOutcome } from './payment-outcome';
