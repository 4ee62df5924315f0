import type { ProviderName } from '../provider-names';
import type { SharedCaptureIds } from './shared-captures';
import { chargeCaptures } from './stripe/charge-captures';

// The adapters' translations of shared capture ids, for workflow code: pure, no I/O, no wire formats.
const byProvider: Partial<Record<ProviderName, SharedCaptureIds>> = { stripe: chargeCaptures };

/** How the provider's shared capture id falls on the lifecycle's captures; undefined where captures never share one. */
export function sharedCaptureIdsOf(provider: ProviderName): SharedCaptureIds | undefined {
  return byProvider[provider];
}
