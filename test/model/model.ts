import type fc from 'fast-check';
import type { ModelStack, Released } from './model-stack';

// What the model knows of one run, what the real side is, and how a violation is reported.

export type Operation = 'capture' | 'refund' | 'void' | 'complete' | 'reauthorize' | 'increment';

export interface Answer {
  status: number;
  data: unknown;
}

/** A request the order system sent under an Idempotency-Key: a retry sends the same key and body again. */
export interface KeyedRequest {
  operation: Operation;
  path: string;
  key: string;
  body: Record<string, unknown>;
  /**
   * Its first success: every retry of the key must get the same status and body. A refusal is not kept (the
   * lifecycle forgets failed attempts, as Stripe does), so a retry after one may still succeed.
   */
  answer?: Answer;
}

export interface MoneyModel {
  keyed: KeyedRequest[];
  /** Whether the service started the lifecycle (it may refuse to adopt a partly captured authorization). */
  started: boolean;
  /** Refunds that are chargebacks (the provider lists them with the capture's refunds). */
  reversals: Set<string>;
  /**
   * Whether the lifecycle has been told of every provider change (set once adopted and once quiet; cleared by
   * a change at the provider it hears of only by webhook): while it has, a request beyond what remains is
   * the service's to refuse, and reaching the provider with it is a money move PayPal (115 %) would make.
   */
  informed: boolean;
  /**
   * The provider's captures whose refunds the provider refuses by a rule of its own that the lifecycle does not
   * share (Stripe's charge stays disputed after a won dispute): such a refusal is no move beyond what remains.
   */
  refundsRefused: Set<string>;
  /** Set once a delivery was dropped: until then the lifecycle must agree with the provider without reading it. */
  dropped: boolean;
  /**
   * Set once a dropped delivery reported what the provider's reconciliation cannot read (PayPal lists no
   * captures of an authorization nor refunds of a capture; Stripe's API subset reads no dispute): from then on
   * the lifecycle may never learn it, so its ledger is held only to hold nothing the provider does not.
   */
  unreadable: boolean;
  /** Set once the lifecycle's run was terminated from outside: it follows no events and takes no command. */
  terminated: boolean;
  /** The ledger's movements (JSON) as the terminated run left them. */
  terminatedLedger?: string;
  /** Names requests, keys and invoice ids uniquely within the run. */
  sequence: number;
  /** The provider's captures as of the last step, to tell which capture a step made. */
  captureIds: Set<string>;
  /** Whether the lifecycle was started with overcapture: its captures may take its provider's allowance too. */
  overcapture: boolean;
}

export interface MoneyReal {
  stack: ModelStack;
  authorizationId: string;
}

export type MoneyCommand = fc.AsyncCommand<MoneyModel, MoneyReal>;

export class ModelViolation extends Error {}

export function violation(message: string): never {
  throw new ModelViolation(message);
}

/** A released transmission the listener refused for good (409 "still verifying" is held again). */
export function refusedDeliveries(released: Released[]): string[] {
  return released
    .filter(({ statuses }) => statuses.some((status) => status !== 409 && (status < 200 || status >= 300)))
    .map(({ eventType, eventId, statuses }) => `${eventType || eventId} answered ${statuses.join(', ')}`);
}
