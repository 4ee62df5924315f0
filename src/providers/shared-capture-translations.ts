import type { ProviderName } from '../provider-names';
import type { SharedCaptureIds } from './shared-captures';
import { chargeCaptures } from './stripe/charge-captures';

// The adapters' translations of shared capture ids, for workflow code: pure, no I/O, no wire formats.
const byProvider: Partial<Record<ProviderName, SharedCaptureIds>> = { stripe: chargeCaptures };

/**
 * How the provider's shared capture id falls on a lifecycle's captures; undefined where they never share one (the
 * provider's, or this lifecycle's hold's: `sharedCaptureIds`, the adapter's capability copied at start).
 */
export function sharedCaptureIdsOf(lifecycle: {
  provider: ProviderName;
  sharedCaptureIds?: boolean;
}): SharedCaptureIds | undefined {
  return lifecycle.sharedCaptureIds ? byProvider[lifecycle.provider] : undefined;
}
