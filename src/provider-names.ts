// The providers a lifecycle may run on, and how a start that names none is told apart. Plain data: the
// workflow, the API and the Nexus handlers all read it.

export const providerNames = ['paypal', 'stripe'] as const;
export type ProviderName = (typeof providerNames)[number];

/** A lifecycle that names no provider runs on PayPal's (every lifecycle started before providers had names). */
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

/**
 * The activity a provider call runs as: PayPal's keep their names (every recorded history schedules them),
 * another provider's carry its name first (`stripe.captureAuthorization`), so one worker hosts both.
 */
export function providerActivityName(provider: ProviderName | undefined, activity: string): string {
  return provider === undefined || provider === DEFAULT_PROVIDER ? activity : `${provider}.${activity}`;
}
