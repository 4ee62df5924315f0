import Stripe from 'stripe';

/** Where Stripe answers and how: api.stripe.com by default, the sandbox or stripe-mock in development. */
export interface StripeClientOptions {
  /** The secret API key (sk_test_… / sk_live_…). */
  apiKey: string;
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  timeoutMs?: number;
}

/**
 * The official SDK, pointed at `host`/`port`/`protocol`. It never retries by itself: the lifecycle's activity
 * retries are the only ones, each with the caller's idempotency key, so the SDK's own generated keys (which a
 * worker restart would lose) never decide whether money moves.
 */
export function stripeClient(options: StripeClientOptions): Stripe {
  return new Stripe(options.apiKey, {
    maxNetworkRetries: 0,
    telemetry: false,
    timeout: options.timeoutMs ?? 10_000,
    ...(options.host && { host: options.host }),
    ...(options.port && { port: options.port }),
    ...(options.protocol && { protocol: options.protocol }),
  });
}

/** The client options a base URL such as `http://127.0.0.1:12111` names. */
export function stripeEndpoint(baseUrl: string): Pick<StripeClientOptions, 'host' | 'port' | 'protocol'> {
  const url = new URL(baseUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
  };
}
