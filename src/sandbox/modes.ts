import type { SandboxModeFactory } from './mode';
import { paypalSandboxMode, type PaypalSandboxOptions } from './paypal/mode';
import { stripeSandboxMode, type StripeSandboxOptions } from './stripe/mode';

/** What startSandbox passes on to a mode besides the core's options: each registered provider's own. */
export type SandboxModeOptions = PaypalSandboxOptions & StripeSandboxOptions;

/**
 * Every contract the sandbox answers by, under the name `startSandbox({ mode })` takes: the one place a
 * provider's folder is registered. `spec` and `paypal` are PayPal's contract in its two dialects; `stripe`
 * is Stripe's (docs/sandbox.md).
 */
export const sandboxModes = {
  spec: paypalSandboxMode('spec'),
  paypal: paypalSandboxMode('paypal'),
  stripe: stripeSandboxMode,
} satisfies Record<string, SandboxModeFactory<SandboxModeOptions>>;

export type SandboxModeName = keyof typeof sandboxModes;
