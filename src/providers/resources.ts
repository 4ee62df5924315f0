import { z } from 'zod';

// The lifecycle's vocabulary for a provider's resources. Its field names (id, status, amount {currency_code,
// value}, final_capture, create_time, expiration_time, …) are the service's own since v1: workflow histories
// record them and the HTTP API answers with them, so every adapter maps its provider's resources onto them.
// The schemas are loose: a provider's extra fields pass through unread.

export const decimalAmountSchema = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'a non-negative decimal number written as a string');

export const moneySchema = z.looseObject({
  currency_code: z.string().length(3),
  value: decimalAmountSchema,
});
export type Money = z.infer<typeof moneySchema>;

export const authorizationStatusSchema = z.enum([
  'CREATED',
  'CAPTURED',
  'DENIED',
  'PARTIALLY_CAPTURED',
  'VOIDED',
  'PENDING',
  'EXPIRED',
]);
export type AuthorizationStatus = z.infer<typeof authorizationStatusSchema>;

export const captureStatusSchema = z.enum([
  'COMPLETED',
  'DECLINED',
  'PARTIALLY_REFUNDED',
  'PENDING',
  'REFUNDED',
  'FAILED',
]);
export type CaptureStatus = z.infer<typeof captureStatusSchema>;

export const refundStatusSchema = z.enum(['CANCELLED', 'FAILED', 'PENDING', 'COMPLETED']);
export type RefundStatus = z.infer<typeof refundStatusSchema>;

export const statusDetailsSchema = z.looseObject({ reason: z.string().optional() });

/** The authorization the lifecycle manages: its id, status and amount, and when it was made and expires. */
export const authorizationSchema = z.looseObject({
  id: z.string().min(1),
  status: authorizationStatusSchema,
  status_details: statusDetailsSchema.optional(),
  amount: moneySchema,
  /**
   * What was captured of it so far, filled by an adapter whose provider says (Stripe's amount_received);
   * PayPal's authorization does not say, so its adapter leaves it out.
   */
  captured_amount: moneySchema.optional(),
  /** What can still be captured of it, filled by an adapter whose provider says (Stripe's amount_capturable). */
  amount_capturable: moneySchema.optional(),
  /** The capture that holds its captures, when they share one (Stripe's charge); PayPal's leaves it out. */
  capture_id: z.string().optional(),
  invoice_id: z.string().optional(),
  custom_id: z.string().optional(),
  expiration_time: z.string().optional(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
  /**
   * The most its captures may take in all where the provider lets them exceed its amount and says by how much
   * for this hold (Stripe's overcapture.maximum_amount_capturable, when available); absent otherwise.
   */
  capture_maximum: moneySchema.optional(),
});
export type Authorization = z.infer<typeof authorizationSchema>;

/**
 * A capture of an authorization; `final_capture` says whether it released what remained. `authorization_id`
 * names the authorization it took from, when the provider says (a capture read by getCapture does): a refund
 * or reversal names only its capture, and this link routes it to the lifecycle.
 */
export const paymentCaptureSchema = z.looseObject({
  id: z.string().min(1),
  authorization_id: z.string().min(1).optional(),
  status: captureStatusSchema,
  status_details: statusDetailsSchema.optional(),
  amount: moneySchema.optional(),
  invoice_id: z.string().optional(),
  custom_id: z.string().optional(),
  final_capture: z.boolean().optional(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type PaymentCapture = z.infer<typeof paymentCaptureSchema>;

/** A refund of a capture. */
export const refundSchema = z.looseObject({
  id: z.string().min(1),
  status: refundStatusSchema,
  status_details: statusDetailsSchema.optional(),
  amount: moneySchema.optional(),
  invoice_id: z.string().optional(),
  custom_id: z.string().optional(),
  note_to_payer: z.string().optional(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type Refund = z.infer<typeof refundSchema>;

/** A webhook subscription: where the provider delivers, and which event types. */
export type Webhook = { id: string; url: string; event_types: { name: string }[] };
