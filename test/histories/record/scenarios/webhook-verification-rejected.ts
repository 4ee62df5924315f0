import { randomUUID } from 'node:crypto';
import { signedDeliveryHeaders } from '../../../../src/providers/paypal/webhook-signature';
import { WEBHOOK_ROUTE } from '../../../../src/webhooks/listener-url';
import { webhookVerificationWorkflowId } from '../../../../src/workflows/webhooks/definitions';
import { verificationResult, voidedEvent } from '../../../helpers/webhook-stack';
import { startLifecycle } from '../lifecycles';
import type { Scenario } from '../scenario';

export const verificationRejected: Scenario = {
  name: 'webhook-verification-rejected',
  shows: 'a delivery signed for another webhook: the provider says FAILURE and the run fails',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '10.00');
    const body = voidedEvent(authorizationId);
    const transmissionId = randomUUID();
    const headers = signedDeliveryHeaders({
      transmissionId,
      transmissionTime: new Date().toISOString(),
      webhookId: 'WH-ANOTHER-WEBHOOK',
      body,
      certUrl: stack.sandbox.certificateUrl,
      privateKeyPem: stack.signing.privateKeyPem,
    });
    const response = await stack.api.post(WEBHOOK_ROUTE, Buffer.from(body, 'utf8'), {
      headers: { ...headers, 'content-type': 'application/json', authorization: undefined },
      transformRequest: (data: unknown) => data,
    });
    if (response.status !== 202) throw new Error(`the intake answered ${response.status}`);
    const result = await verificationResult(stack.client, transmissionId);
    if (result.outcome !== 'rejected') throw new Error(`the forged delivery was ${result.outcome}`);
    return stack.client.workflow.getHandle(webhookVerificationWorkflowId(transmissionId));
  },
};
