import { inspect } from 'node:util';

export interface EventuallyOptions {
  /** How long to keep asking; default 20 s. */
  timeoutMs?: number;
  /** Pause between two reads; default 100 ms. */
  intervalMs?: number;
  /** What is awaited, for the failure message, e.g. "the lifecycle to be VOIDED". */
  what?: string;
}

/**
 * Reads until `done` holds for the value read, and answers that value: the one way tests wait for something
 * that happens asynchronously (a workflow's state, a delivery, a capture at the provider). After `timeoutMs`
 * it fails, naming what it waited for and the last value read.
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  options: EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 100, what = 'the condition' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() >= deadline) {
      throw new Error(
        `waited ${timeoutMs} ms for ${what}; last value: ${inspect(value, { depth: 4, breakLength: Infinity })}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
