import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ProviderError } from './errors';

const faultOperations = [
  'capture',
  'void',
  'reauthorize',
  'increment',
  'refund',
  'get',
  'webhooks',
  'verify',
  'any',
] as const;
export type FaultOperation = (typeof faultOperations)[number];

export const faultRequestSchema = z.object({
  operation: z.enum(faultOperations),
  mode: z.enum(['http500', 'http429', 'stall', 'commit-then-drop']),
  count: z.number().int().positive().default(1),
  retryAfterSeconds: z.number().int().nonnegative().optional(),
  stallMs: z.number().int().nonnegative().max(600_000).optional(),
  /** The share of matching calls that misbehave (until `count` have); 1 = every one. */
  probability: z.number().gt(0).max(1).default(1),
});

export type FaultRequest = z.infer<typeof faultRequestSchema>;
export interface Fault extends FaultRequest {
  id: number;
  /** How many matching calls are still to misbehave. */
  remaining: number;
}

/** What a faulty call does instead of, or besides, its ordinary answer. */
export type FaultEffect = { drop: boolean };

const defaultStallMs = 30_000;

/**
 * Faults armed through the control API: each makes the next `count` calls of its operation misbehave.
 * `get` is reading an authorization or a capture, `webhooks` any webhook management call, `any` every call
 * of interfaces A and B. The token endpoint, the certificate and the control API never misbehave.
 */
export class FaultInjector {
  private faults: Fault[] = [];
  private nextId = 1;
  private readonly stalls = new AbortController();

  arm(request: FaultRequest): Fault {
    const fault = { ...request, id: this.nextId++, remaining: request.count };
    this.faults.push(fault);
    return fault;
  }

  armed(): Fault[] {
    return this.faults.filter((fault) => fault.remaining > 0);
  }

  clear(): void {
    this.faults = [];
  }

  /** Ends every stall at once, so that closing the sandbox never waits for one. */
  releaseStalls(): void {
    this.stalls.abort();
  }

  /**
   * Consumes one matching fault, if any, and plays its first half: an error answer is thrown, a stall is
   * waited out. The caller then handles the request and, when `drop` is set, closes the connection
   * instead of answering.
   */
  async enter(operation: Exclude<FaultOperation, 'any'>): Promise<FaultEffect> {
    const matching = this.faults.filter(
      (candidate) =>
        candidate.remaining > 0 && (candidate.operation === operation || candidate.operation === 'any'),
    );
    // One draw for the call: faults armed with probabilities 0.05 each fault 5% of calls each, never two.
    let draw = Math.random();
    const fault = matching.find((candidate) => {
      if (draw < candidate.probability) return true;
      draw -= candidate.probability;
      return false;
    });
    if (!fault) return { drop: false };
    fault.remaining -= 1;
    switch (fault.mode) {
      case 'http500':
        throw new ProviderError(500, {
          name: 'INTERNAL_SERVER_ERROR',
          message: 'An internal server error occurred.',
        });
      case 'http429':
        throw new ProviderError(
          429,
          { name: 'RATE_LIMIT_REACHED', message: 'Too many requests. Blocked due to rate limiting.' },
          fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) },
        );
      case 'stall':
        await sleep(fault.stallMs ?? defaultStallMs, undefined, { signal: this.stalls.signal }).catch(
          () => {},
        );
        return { drop: false };
      case 'commit-then-drop':
        return { drop: true };
    }
  }
}
