// Every workflow the worker hosts. Each file here is deterministic code only.
export { authorizationLifecycle } from './lifecycle/workflow';
export * from './character-import';
