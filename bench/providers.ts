// BENCH_PROVIDER: which providers a benchmark measures, side by side in one run.

export type BenchProvider = 'paypal' | 'stripe';

const choices: Record<string, BenchProvider[]> = {
  paypal: ['paypal'],
  stripe: ['stripe'],
  both: ['paypal', 'stripe'],
};

/** `paypal` (the default), `stripe` or `both`; anything else stops the benchmark, naming the variable. */
export function benchProviders(value: string | undefined): BenchProvider[] {
  const providers = choices[value?.trim() || 'paypal'];
  if (!providers) throw new Error(`BENCH_PROVIDER: paypal, stripe or both, not ${JSON.stringify(value)}`);
  return providers;
}
