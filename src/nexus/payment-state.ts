import type { LifecycleState } from '../workflows/lifecycle/definitions';
import type { PaymentState } from './service';

/** The state as the API shows it too: the remembered answers and seen event ids stay inside the workflow. */
export function paymentState(state: LifecycleState): PaymentState {
  const { keyedAnswers: _answers, seenEventIds: _seen, ...shown } = state;
  return shown;
}
