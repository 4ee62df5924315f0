import { z } from 'zod';

// The spec hides the resource fields; these follow the public PayPal v2 payments and v1 notifications
// resources. Objects are loose: fields we do not model pass through unchanged. A field we rely on that is
// missing or malformed fails the parse, and the error names its path.

const decimalAmount = z.string().regex(/^\d+(\.\d+)?$/, 'a non-negative decimal number written as a string');

export const moneySchema = z.looseObject({
  currency_code: z.string().length(3),
  value: decimalAmount,
});
export type Money = z.infer<typeof moneySchema>;

export const linkSchema = z.looseObject({
  href: z.string(),
  rel: z.string(),
  method: z.string().optional(),
});
export type Link = z.infer<typeof linkSchema>;

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

const statusDetailsSchema = z.looseObject({ reason: z.string().optional() });

export const authorizationSchema = z.looseObject({
  id: z.string().min(1),
  status: authorizationStatusSchema,
  status_details: statusDetailsSchema.optional(),
  amount: moneySchema,
  invoice_id: z.string().optional(),
  custom_id: z.string().optional(),
  expiration_time: z.string().optional(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
  links: z.array(linkSchema).optional(),
  supplementary_data: z.looseObject({}).optional(),
});
export type Authorization = z.infer<typeof authorizationSchema>;

export const paymentCaptureRequestSchema = z.looseObject({
  amount: moneySchema.optional(),
  invoice_id: z.string().optional(),
  final_capture: z.boolean().optional(),
  note_to_payer: z.string().optional(),
  soft_descriptor: z.string().optional(),
});
export type PaymentCaptureRequest = z.infer<typeof paymentCaptureRequestSchema>;

export const captureStatusSchema = z.enum([
  'COMPLETED',
  'DECLINED',
  'PARTIALLY_REFUNDED',
  'PENDING',
  'REFUNDED',
  'FAILED',
]);
export type CaptureStatus = z.infer<typeof captureStatusSchema>;

export const paymentCaptureSchema = z.looseObject({
  id: z.string().min(1),
  status: captureStatusSchema,
  status_details: statusDetailsSchema.optional(),
  amount: moneySchema.optional(),
  invoice_id: z.string().optional(),
  custom_id: z.string().optional(),
  final_capture: z.boolean().optional(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
  links: z.array(linkSchema).optional(),
});
export type PaymentCapture = z.infer<typeof paymentCaptureSchema>;

export const refundRequestSchema = z.looseObject({
  amount: moneySchema.optional(),
  custom_id: z.string().min(1).max(127).optional(),
  invoice_id: z.string().min(1).max(127).optional(),
  note_to_payer: z.string().min(1).max(255).optional(),
});
export type RefundRequest = z.infer<typeof refundRequestSchema>;

export const refundStatusSchema = z.enum(['CANCELLED', 'FAILED', 'PENDING', 'COMPLETED']);
export type RefundStatus = z.infer<typeof refundStatusSchema>;

/** A refund: PayPal's minimal answer (id, status, links) is a valid one. */
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
  links: z.array(linkSchema).optional(),
});
export type Refund = z.infer<typeof refundSchema>;

/** A reauthorization's amount: the total travels as text, never as a JSON number. */
export const reauthorizationAmountSchema = z.object({
  currency: z.string().length(3),
  total: decimalAmount,
});
export type ReauthorizationAmount = z.infer<typeof reauthorizationAmountSchema>;

export const eventTypeSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  status: z.string().optional(),
  resource_versions: z.array(z.string()).optional(),
});
export type EventType = z.infer<typeof eventTypeSchema>;

export const webhookSchema = z.looseObject({
  id: z.string().min(1),
  url: z.string().min(1),
  event_types: z.array(eventTypeSchema),
  links: z.array(linkSchema).optional(),
});
export type Webhook = z.infer<typeof webhookSchema>;

export const createWebhookRequestSchema = z.looseObject({
  url: z.url(),
  event_types: z.array(z.looseObject({ name: z.string().min(1) })).min(1),
});
export type CreateWebhookRequest = z.infer<typeof createWebhookRequestSchema>;

/** One operation of a JSON Patch (RFC 6902) update, e.g. `{ op: 'replace', path: '/url', value: '…' }`. */
export const webhookFieldSchema = z.looseObject({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string().min(1),
  value: z.unknown().optional(),
  from: z.string().optional(),
});
export type WebhookField = z.infer<typeof webhookFieldSchema>;

export const webhookListSchema = z.looseObject({ webhooks: z.array(webhookSchema) });
export type WebhookList = z.infer<typeof webhookListSchema>;

export const verifyWebhookResponseSchema = z.looseObject({
  verification_status: z.enum(['SUCCESS', 'FAILURE']),
});
export type VerifyWebhookResponse = z.infer<typeof verifyWebhookResponseSchema>;

export const webhookEventTypesSchema = z.looseObject({ event_types: z.array(eventTypeSchema) });
export type WebhookEventTypes = z.infer<typeof webhookEventTypesSchema>;

export const accessTokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive(),
});
export type AccessTokenResponse = z.infer<typeof accessTokenResponseSchema>;
