import type { Rewrite } from '../../helpers/recording-proxy';

const VERIFY_PATH = '/v1/notifications/verify-webhook-signature';

/**
 * Answers one verify call 403, as PayPal does while the webhook subscription is being replaced: a settings
 * refusal, which a verification run asks again after a timer. The sandbox has no fault for it (its faults
 * are 5xx, 429, stalls and lost answers); the worker reaches the sandbox through a proxy that applies this.
 */
export class VerifyRefusals {
  private armed: Array<(body: string) => boolean> = [];

  /** Refuses the next verify call whose request (the delivery's event among it) satisfies `concerns`. */
  refuseOnce(concerns: (requestBody: string) => boolean): void {
    this.armed.push(concerns);
  }

  readonly rewrite: Rewrite = (exchange) => {
    if (exchange.path !== VERIFY_PATH) return undefined;
    const body = exchange.requestBody.toString('utf8');
    const index = this.armed.findIndex((concerns) => concerns(body));
    if (index < 0) return undefined;
    this.armed.splice(index, 1);
    return {
      status: 403,
      body: JSON.stringify({
        name: 'PERMISSION_DENIED',
        message: 'You do not have permission to access or perform operations on this resource.',
      }),
    };
  };
}
