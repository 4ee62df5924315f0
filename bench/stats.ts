// Small helpers the benchmarks share: percentiles, bounded concurrency, timing.

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] as number;
}

export function summary(samples: number[]): string {
  const f = (p: number) => percentile(samples, p).toFixed(1);
  return `p50 ${f(50)} ms, p95 ${f(95)} ms, p99 ${f(99)} ms`;
}

/** Runs `work(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function runBounded(count: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next;
      next += 1;
      await work(i);
    }
  });
  await Promise.all(lanes);
}

export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}
