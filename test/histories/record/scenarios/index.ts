import type { Scenario } from '../scenario';
import { continuedByLength } from './authorization-lifecycle-continued-by-length';
import { encrypted } from './authorization-lifecycle-encrypted';
import { keyedReauthorizeCapture } from './authorization-lifecycle-keyed-reauthorize-capture';
import { lateCaptureEvent } from './authorization-lifecycle-late-capture-event';
import { lostAnswerClaimed } from './authorization-lifecycle-lost-answer-claimed';
import { partialThenFinalCapture } from './authorization-lifecycle-partial-then-final-capture';
import { refundAndRefundEvent } from './authorization-lifecycle-refund-and-refund-event';
import { refundEventUnlistedCaptures } from './authorization-lifecycle-refund-event-unlisted-captures';
import { refundReopened } from './authorization-lifecycle-refund-reopened';
import { reopenedByChargeback } from './authorization-lifecycle-reopened-by-chargeback';
import { orderPaymentNexus } from './order-payment-nexus';
import { smoke } from './smoke-workflow';
import { verificationChargebackReopens } from './webhook-verification-chargeback-reopens';
import { verificationDelivered } from './webhook-verification-delivered';
import { verificationRefundByCaptureLink } from './webhook-verification-refund-by-capture-link';
import { verificationRefusedThenVerified } from './webhook-verification-refused-then-verified';
import { verificationRejected } from './webhook-verification-rejected';

/** Every history of test/histories/, one scenario each. */
export const scenarios: readonly Scenario[] = [
  continuedByLength,
  encrypted,
  keyedReauthorizeCapture,
  lateCaptureEvent,
  lostAnswerClaimed,
  partialThenFinalCapture,
  refundAndRefundEvent,
  refundEventUnlistedCaptures,
  refundReopened,
  reopenedByChargeback,
  orderPaymentNexus,
  smoke,
  verificationChargebackReopens,
  verificationDelivered,
  verificationRefundByCaptureLink,
  verificationRefusedThenVerified,
  verificationRejected,
];
