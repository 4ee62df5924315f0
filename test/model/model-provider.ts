import type { AxiosInstance } from 'axios';
import type { Client } from '@temporalio/client';
import type { ApiOptions } from '../../src/api/server';
import type { ProviderName } from '../../src/provider-names';
import type { Sandbox } from '../../src/sandbox/server';
import type { ProviderLedger } from './provider-ledger';

/**
 * What the money model needs of one provider: its sandbox and the service's wiring to it, its books in the
 * model's shape, and what the merchant's dashboard and the payer's bank do there. The model, its commands and
 * its invariants are the same for every provider (PROVIDER picks one).
 */
export interface ModelProvider {
  name: ProviderName;
  /** The sandbox in this provider's mode; `dashboardToken` is accepted as the merchant's own credential. */
  startSandbox(dashboardToken: string): Promise<Sandbox>;
  /** The bearer token the merchant's dashboard calls the provider's API with. */
  dashboardToken: string;
  /**
   * How long the sandbox keeps an idempotency key and the adapter says the provider does, shortened so that
   * a run can wait it out (RetryPastKeyRetention); absent: the provider's own, which no run waits out.
   */
  keyRetentionMs?: number;
  /** The API's intake of this provider's deliveries; `webhookId` is the sandbox's held-deliveries webhook. */
  intake(
    sandbox: Sandbox,
    client: Client,
    taskQueue: string,
    webhookId: string,
  ): Pick<ApiOptions, 'webhooks'>;
  /** Where the API takes this provider's deliveries. */
  webhookRoute: string;
  /** The worker's activities for this provider's lifecycles and its webhook verifications. */
  activities(sandbox: Sandbox, listenerUrl: string): Record<string, unknown>;
  /**
   * A payment held at the sandbox for 100.00 USD; `multicapture` asks for several captures, `overcapture` for
   * captures beyond the hold, where the provider makes them a property of the authorization's card (Stripe);
   * PayPal always allows both.
   */
  authorize(provider: AxiosInstance, multicapture: boolean, overcapture: boolean): Promise<string>;
  /** The provider's books of the lifecycle started on `authorizationId`; `api` reads the lifecycle's chain. */
  readLedger(provider: AxiosInstance, api: AxiosInstance, authorizationId: string): Promise<ProviderLedger>;
  /**
   * Whether the lifecycle's reconciliation can read what an event of this type reports, had the event never
   * been delivered: PayPal's read covers the authorizations and the captures and refunds the lifecycle knows
   * (it lists no captures of an authorization, no refunds of a capture), Stripe's every intent, charge,
   * refund and dispute of the chain.
   */
  readable(eventType: string): boolean;
  /** The provider's refusals of a move beyond what is left (the `issue` the API reports). */
  overMoveIssues: readonly string[];
  /** The merchant captures at the provider, under `name` as its request id and invoice id. */
  dashboardCapture(
    provider: AxiosInstance,
    authorizationId: string,
    amount: string,
    finalCapture: boolean,
    name: string,
  ): Promise<void>;
  /** The merchant refunds at the provider. */
  dashboardRefund(
    provider: AxiosInstance,
    captureId: string,
    amount: string | undefined,
    name: string,
  ): Promise<void>;
  /** The payer's bank reverses what is left of a capture: the ledger's id of the reversal, if one was made. */
  chargeback(provider: AxiosInstance, captureId: string): Promise<string | undefined>;
  /**
   * One of the capture's completed refunds (not a reversal) fails at the provider, or is canceled where the
   * provider's sandbox cancels one (`cancel`, PayPal's CANCELLED): its money is the merchant's again. Answers
   * the refund's id, or undefined when the capture had none to fail.
   */
  returnRefund(
    provider: AxiosInstance,
    captureId: string,
    cancel: boolean,
    reversals: ReadonlySet<string>,
  ): Promise<string | undefined>;
  /**
   * Where the provider has disputes the merchant can win (Stripe): the payer's bank opens one on the capture,
   * as an inquiry (which withdraws nothing, then closes) or as a dispute that withdraws what the capture has
   * left, then is won (reinstated) or lost. Answers the ledger's id of a dispute that withdrew and keeps it
   * (lost), and whether the provider refuses the capture's refunds from now on; undefined when none opened.
   */
  disputeOutcome?(
    provider: AxiosInstance,
    captureId: string,
    outcome: DisputeOutcomeName,
  ): Promise<{ reversal?: string; refundsRefused: boolean } | undefined>;
}

export type DisputeOutcomeName = 'won' | 'lost' | 'inquiry';
