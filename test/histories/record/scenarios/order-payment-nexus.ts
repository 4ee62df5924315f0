import type { orderPayment } from '../../../../examples/orders/workflows';
import { createSandboxAuthorization } from '../../../helpers/lifecycle-stack';
import type { Scenario } from '../scenario';

export const orderPaymentNexus: Scenario = {
  name: 'order-payment-nexus',
  shows: 'the example order workflow in `orders`: lifecycle, two captures and the outcome over Nexus',
  async drive(stack) {
    const { id: authorizationId } = await createSandboxAuthorization(stack.control, '100.00');
    const { client, endpoint, taskQueue } = stack.orders;
    const order = await client.workflow.start<typeof orderPayment>('orderPayment', {
      taskQueue,
      workflowId: 'order-1001',
      args: [{ orderId: 'order-1001', authorizationId, firstShipmentAmount: '30.00', endpoint }],
      workflowExecutionTimeout: '2 minutes',
    });
    const { outcome } = await order.result();
    if (outcome.status !== 'CAPTURED') throw new Error(`the order's payment ended ${outcome.status}`);
    return order;
  },
};
