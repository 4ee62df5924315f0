// Stripe's idempotency keys are one namespace per account, whatever the endpoint: the same key on a capture
// and on a refund would answer the refund with the capture's first answer, or an idempotency_error. Each
// Stripe request therefore carries `<operation>/<caller's key>`: operations are fixed words without "/",
// so distinct (operation, key) pairs never share a Stripe key. At most 27 + 1 + 141 characters, inside 255;
// a replacement a reauthorization releases is canceled under `<key>/<its intent id>`, about 30 more.

export type StripeOperation =
  | 'capture'
  | 'increment'
  | 'cancel'
  | 'refund'
  | 'reauthorize-create'
  | 'reauthorize-cancel-previous'
  | 'reauthorize-cancel-new'
  | 'reauthorize-cancel-found';

export function stripeIdempotencyKey(operation: StripeOperation, key: string): string {
  return `${operation}/${key}`;
}
