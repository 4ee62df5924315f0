import { createNexusServiceClient } from '@temporalio/workflow';
import { PAYMENTS_ENDPOINT, paymentsService, type PaymentState } from '../../src/nexus/service';

// An order system's workflow in its own namespace (`orders`): it pays for an order through the payments
// Nexus service, never through our workflow types or our namespace.

export interface OrderPaymentInput {
  orderId: string;
  /** The buyer's approved authorization at the provider. */
  authorizationId: string;
  /** What the first shipment captures, e.g. "30.00"; the second captures the rest. */
  firstShipmentAmount: string;
  /** The Nexus endpoint; `payments` unless told otherwise. */
  endpoint?: string;
}

export interface OrderPaymentResult {
  captureIds: string[];
  outcome: PaymentState;
}

export async function orderPayment(input: OrderPaymentInput): Promise<OrderPaymentResult> {
  const payments = createNexusServiceClient({
    service: paymentsService,
    endpoint: input.endpoint ?? PAYMENTS_ENDPOINT,
  });
  const { authorizationId, orderId } = input;
  await payments.executeOperation('startLifecycle', { authorizationId, orderId });
  // Keys named after the order: a reset or re-run of this workflow never captures a shipment twice.
  const first = await payments.executeOperation('capture', {
    authorizationId,
    amount: input.firstShipmentAmount,
    finalCapture: false,
    idempotencyKey: `${orderId}.shipment-1`,
  });
  const rest = await payments.executeOperation('capture', {
    authorizationId,
    finalCapture: true,
    idempotencyKey: `${orderId}.shipment-2`,
  });
  // Asynchronous: completes when the lifecycle reaches a terminal status, however long that takes.
  const outcome = await payments.executeOperation(
    'awaitOutcome',
    { authorizationId },
    { scheduleToCloseTimeout: '30 days' },
  );
  return { captureIds: [first.id, rest.id], outcome };
}
