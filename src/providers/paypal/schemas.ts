import { z } from 'zod';
import * as resources from '../resources';

// The spec hides the resource fields; these follow the public PayPal v2 payments and v1 notifications
// resources. Objects are loose: fields we do not model pass through unchanged. A `*BodySchema` accepts
// every answer PayPal's schema allows; the schema without `Body` is what the client hands out, read again
// from the provider when an answer left out a field it needs. A malformed field fails the parse, and the
// error names its path.

export const linkSchema = z.looseObject({
  href: z.string(),
  rel: z.string(),
  method: z.string().optional(),
});
export type Link = z.infer<typeof linkSchema>;

const paypalFields = { links: z.array(linkSchema).optional() };

/** What the client answers: the lifecycle's authorization, with PayPal's links and supplementary data. */
export const authorizationSchema = resources.authorizationSchema.extend({
  ...paypalFields,
  supplementary_data: z.looseObject({}).optional(),
});
export type Authorization = z.infer<typeof authorizationSchema>;

/** An authorization as PayPal's schema allows it: every field optional (a minimal answer has id, status, links). */
export const authorizationBodySchema = authorizationSchema.partial();

export const paymentCaptureRequestSchema = z.looseObject({
  amount: resources.moneySchema.optional(),
  invoice_id: z.string().optional(),
  final_capture: z.boolean().optional(),
  note_to_payer: z.string().optional(),
  soft_descriptor: z.string().optional(),
});
export type PaymentCaptureRequest = z.infer<typeof paymentCaptureRequestSchema>;

/** What the client answers: a capture with its id and status (a minimal answer has both). */
export const paymentCaptureSchema = resources.paymentCaptureSchema.extend(paypalFields);
export type PaymentCapture = z.infer<typeof paymentCaptureSchema>;

/** A capture as PayPal's schema allows it: every field optional. */
export const paymentCaptureBodySchema = paymentCaptureSchema.partial();

export const refundRequestSchema = z.looseObject({
  amount: resources.moneySchema.optional(),
  custom_id: z.string().min(1).max(127).optional(),
  invoice_id: z.string().min(1).max(127).optional(),
  note_to_payer: z.string().min(1).max(255).optional(),
});
export type RefundRequest = z.infer<typeof refundRequestSchema>;

/** A refund: PayPal's minimal answer (id, status, links) is a valid one. */
export const refundSchema = resources.refundSchema.extend(paypalFields);
export type Refund = z.infer<typeof refundSchema>;

/** A reauthorization's amount: the total travels as text, never as a JSON number. */
export const reauthorizationAmountSchema = z.object({
  currency: z.string().length(3),
  total: resources.decimalAmountSchema,
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

// PayPal's lists may leave their arrays out: an absent list is an empty one.
export const webhookListSchema = z.looseObject({ webhooks: z.array(webhookSchema).default([]) });
export type WebhookList = z.infer<typeof webhookListSchema>;

export const verifyWebhookResponseSchema = z.looseObject({
  verification_status: z.enum(['SUCCESS', 'FAILURE']),
});
export type VerifyWebhookResponse = z.infer<typeof verifyWebhookResponseSchema>;

export const webhookEventTypesSchema = z.looseObject({ event_types: z.array(eventTypeSchema).default([]) });
export type WebhookEventTypes = z.infer<typeof webhookEventTypesSchema>;

export const accessTokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive(),
});
export type AccessTokenResponse = z.infer<typeof accessTokenResponseSchema>;
