// The providers a lifecycle may run on, and the provider of a start that names none. Plain data: the
// workflow, the API and the Nexus handlers all read it.

export const providerNames = ['paypal', 'stripe'] as const;
export type ProviderName = (typeof providerNames)[number];

/** The provider of a start that names none and whose authorization id is not another provider's. */
export const DEFAULT_PROVIDER: ProviderName = 'paypal';

/** The provider a start names, or the one its authorization id gives away: Stripe's PaymentIntents are `pi_…`. */
export function providerOfStart(start: { authorizationId: string; provider?: ProviderName }): ProviderName {
  return start.provider ?? (start.authorizationId.startsWith('pi_') ? 'stripe' : DEFAULT_PROVIDER);
}

/** Why a start cannot run on `provider` here (it is not configured), or undefined when it can. */
export function unconfiguredProvider(
  provider: ProviderName,
  configured: readonly ProviderName[],
): string | undefined {
  if (configured.includes(provider)) return undefined;
  return `provider: ${provider} is not configured here (PAYMENTS_PROVIDER=${configured.join(',')})`;
}

/** The activity a provider call runs as: the provider's name first (`stripe.captureAuthorization`), so one worker hosts every provider. */
export function providerActivityName(provider: ProviderName, activity: string): string {
  return `${provider}.${activity}`;
}

/** Activities under a provider's names (providerActivityName). */
export function underProviderNames(provider: ProviderName, activities: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(activities).map(([activity, call]) => [providerActivityName(provider, activity), call]),
  );
}
