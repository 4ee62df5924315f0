import { z } from 'zod';
import { durationSchema } from '../duration';
import { expiryPolicies } from '../expiry-policies';
import { providerNames } from '../provider-names';

// A provider resource id as one path segment: PayPal's ids are upper-case letters and digits, Stripe's
// letters, digits and "_"; "." and ".." would name another path.
const identifier = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "_" or "-"');

// The decimals the currency allows (JPY 0, USD 2, KWD 3) are checked by the lifecycle, which knows the currency.
const amount = z
  .string()
  .max(32)
  .regex(/^\d+(\.\d+)?$/, 'a positive decimal amount as a string, e.g. "10.00"');

export const startLifecycleBody = z.strictObject({
  authorizationId: identifier,
  /** The authorization's provider; unset: Stripe's for a `pi_…` id, else PayPal's. */
  provider: z.enum(providerNames).optional(),
  orderId: z.string().min(1).max(127).optional(),
  reauthorizeAfter: durationSchema('reauthorizeAfter').optional(),
  expiryPolicy: z.enum(expiryPolicies).optional(),
  expiryPolicyAfter: durationSchema('expiryPolicyAfter').optional(),
  lateEventWindow: durationSchema('lateEventWindow').optional(),
  idempotencyKeyRetention: durationSchema('idempotencyKeyRetention').optional(),
  timerCallTimeout: durationSchema('timerCallTimeout').optional(),
  eventGracePeriod: durationSchema('eventGracePeriod').optional(),
  /**
   * A capture may exceed what remains by the provider's allowance (PayPal's 115 % of the authorization, at most
   * 75 USD more; Stripe's maximum_amount_capturable on cards that allow overcapture).
   */
  overcapture: z.boolean().optional(),
  /** Each new hold a reauthorization takes asks for an extended authorization (Stripe; refused on PayPal). */
  extendedAuthorization: z.boolean().optional(),
});

export const authorizationParams = z.object({ authorizationId: identifier });

/** The caller's Idempotency-Key: a provider request id is derived from it, so its alphabet has no "/". */
export const idempotencyKey = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'required: a key of your own per request (e.g. a UUID), repeated on its retries'
        : undefined,
  })
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits, ".", "_", ":" or "-"');

/** Capture, refund and reauthorize move money: each needs its Idempotency-Key. */
export const idempotencyHeaders = z.object({ 'idempotency-key': idempotencyKey });

/** A void is idempotent at the provider: its Idempotency-Key is optional. */
export const voidHeaders = z.object({ 'idempotency-key': idempotencyKey.optional() });

export const captureBody = z.strictObject({
  amount: amount.optional(),
  finalCapture: z.boolean().optional(),
  invoiceId: z.string().min(1).max(127).optional(),
  noteToPayer: z.string().min(1).max(255).optional(),
});

export const reauthorizeBody = z.strictObject({ amount: amount.optional() });

/** By how much to raise the hold: the increase, not the new total. */
export const incrementBody = z.strictObject({ amount });

export const refundBody = z.strictObject({
  amount: amount.optional(),
  invoiceId: z.string().min(1).max(127).optional(),
  noteToPayer: z.string().min(1).max(255).optional(),
});

export const captureParams = authorizationParams.extend({ captureId: identifier });

export const voidBody = z.strictObject({}).optional();

export const errorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

const amountOut = z.looseObject({ currency_code: z.string(), value: z.string() });

/** What completing the order released, and the lifecycle's status after it. */
export const orderCompletionBody = z.object({
  authorizationId: z.string(),
  released: amountOut,
  status: z.string(),
});

/** A movement of the lifecycle's ledger (src/providers/movements.ts). */
const ledgerMovement = z.looseObject({
  kind: z.string(),
  reference: z.string(),
  of: z.string().optional(),
  minorUnits: z.string(),
  source: z.string(),
  key: z.string().optional(),
  at: z.string(),
});

/**
 * The lifecycle's state as the API shows it (LifecycleState in src/workflows/lifecycle/definitions.ts, less
 * its bookkeeping: remembered answers and seen event ids stay inside the workflow).
 */
/** A discrepancy; `resolvedAt` once a later read found the provider holds what it recorded as missing. */
const discrepancy = z.object({
  movement: ledgerMovement,
  invariant: z.string(),
  at: z.string(),
  resolvedAt: z.string().optional(),
});

export const lifecycleStateBody = z.object({
  workflowId: z.string(),
  authorizationId: z.string(),
  /** The provider the lifecycle runs on. */
  provider: z.string(),
  /** The caller that started it; absent on one the unconfined client started. */
  owner: z.string().optional(),
  currentAuthorizationId: z.string(),
  orderId: z.string().optional(),
  status: z.string(),
  currency: z.string(),
  authorizedAmount: z.string(),
  capturedAmount: z.string(),
  remainingAmount: z.string(),
  authorizationCreateTime: z.string(),
  expirationTime: z.string().optional(),
  reauthorizeAt: z.string().optional(),
  expiryPolicyAt: z.string(),
  expiryPolicy: z.enum(expiryPolicies),
  /** Set when the start allowed overcapture (a capture may exceed what remains by the provider's allowance). */
  overcapture: z.boolean().optional(),
  /** The most the current hold's captures may take in all, where its provider says (Stripe's overcapture). */
  captureMaximum: z.string().optional(),
  /** Set when the start asked for extended authorizations on the new holds of reauthorizations. */
  extendedAuthorization: z.boolean().optional(),
  /** What the lifecycle's timer does next, when, and (for the hold's timers) why then. */
  nextTimer: z.object({ kind: z.string(), at: z.string(), why: z.string().optional() }).optional(),
  /** Movements the lifecycle made whose provider event has not come: read after `readAfter` (the `reconcile` timer). */
  awaitedEvents: z
    .array(z.object({ kind: z.string(), reference: z.string(), madeAt: z.string(), readAfter: z.string() }))
    .optional(),
  captures: z.array(
    z.looseObject({
      id: z.string(),
      status: z.string(),
      amount: amountOut,
      /** The provider's charge a capture shares with others (Stripe's multicapture; the id is `<charge>-<n>`). */
      chargeId: z.string().optional(),
    }),
  ),
  refunds: z
    .array(z.looseObject({ id: z.string(), captureId: z.string(), status: z.string(), amount: amountOut }))
    .optional(),
  refundedAmount: z.string().optional(),
  reauthorizations: z.array(
    z.looseObject({ fromAuthorizationId: z.string(), toAuthorizationId: z.string() }),
  ),
  recentEvents: z.array(z.looseObject({ id: z.string(), eventType: z.string(), applied: z.boolean() })),
  /** The lifecycle's money movements (amounts in minor units) and what it could not book. */
  ledger: z.object({
    movements: z.array(ledgerMovement),
    discrepancies: z.array(discrepancy),
    /** Each run of the hold's timers: when, why then, and what it did. */
    timerRuns: z
      .array(
        z.object({
          timer: z.string(),
          at: z.string(),
          why: z.string(),
          outcome: z.string(),
          reference: z.string().optional(),
          failure: z.string().optional(),
        }),
      )
      .optional(),
  }),
  /** The last reconciliation with the provider: when, why, how many movements it booked and discrepancies it recorded. */
  lastReconciliation: z
    .object({
      at: z.string(),
      reason: z.string(),
      booked: z.number(),
      recorded: z.number(),
      resolved: z.number().optional(),
    })
    .optional(),
  /** The last scheduled reauthorization that failed for good: when, and the provider's issue or TIMEOUT. */
  reauthorizationFailure: z.object({ at: z.string(), reason: z.string() }).optional(),
  /** Set when the lifecycle's run was ended from outside (terminated, or timed out): it takes no command. */
  runEnded: z.object({ how: z.enum(['TERMINATED', 'TIMED_OUT']), at: z.string().optional() }).optional(),
});

/** What a reconciliation did (ReconcileSummary in src/workflows/lifecycle/reconcile.ts). */
export const reconcileSummaryBody = z.object({
  at: z.string(),
  reason: z.string(),
  /** The movements it booked, each with source `read`. */
  booked: z.array(ledgerMovement),
  /** The discrepancies it recorded: what the ledger holds that the provider does not. */
  recorded: z.array(discrepancy),
  /** The discrepancies of earlier reads it resolved: the provider now holds their movement. */
  resolved: z.array(discrepancy),
  /** Every discrepancy the ledger has recorded. */
  discrepancies: z.array(discrepancy),
  /** What the read could not tell. */
  unreadable: z.array(z.string()),
});

export const startedLifecycleBody = z.object({
  workflowId: z.string(),
  runId: z.string(),
  state: lifecycleStateBody,
});
