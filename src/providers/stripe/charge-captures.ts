import type { SharedCapture, SharedCaptureIds, TakeBack } from '../shared-captures';

// A multicapture PaymentIntent captures into its one charge: every capture's answer names the charge, and the
// charge's events say only what it captured in all, and its refunds and disputes. The lifecycle names each
// capture `<charge>-<n>`; this is how the charge's answers and events fall on those captures.

const captureNumber = /-(\d+)$/;

function providerIdOf(captureId: string): string {
  const number = captureNumber.exec(captureId);
  return number ? captureId.slice(0, number.index) : captureId;
}

/** One past the highest `n` booked into the charge (a learnt capture taken back leaves its number used). */
function nextId(chargeId: string, booked: string[]): string {
  const highest = booked
    .filter((id) => providerIdOf(id) === chargeId && id !== chargeId)
    .map((id) => Number(captureNumber.exec(id)?.[1]))
    .reduce((max, n) => (Number.isSafeInteger(n) && n > max ? n : max), 0);
  return `${chargeId}-${highest + 1}`;
}

/**
 * One learnt capture of the same amount becomes the answer's; otherwise learnt captures with nothing refunded,
 * newest first, are taken back, each keeping what the answer does not explain.
 */
function takeBack(learned: SharedCapture[], amount: bigint): TakeBack {
  const same = learned.find((capture) => capture.captured === amount);
  if (same) return { becomes: same.id };
  let left = amount;
  const takenBack: Array<{ id: string; kept: bigint }> = [];
  for (const capture of [...learned].reverse()) {
    if (left === 0n) break;
    if (capture.refunded > 0n) continue;
    const taken = capture.captured < left ? capture.captured : left;
    left -= taken;
    takenBack.push({ id: capture.id, kept: capture.captured - taken });
  }
  return { takenBack };
}

function refundable(capture: SharedCapture): bigint {
  const left = capture.captured - capture.refunded;
  return left > 0n ? left : 0n;
}

function refundPortions(captures: SharedCapture[], amount: bigint) {
  let left = amount;
  const portions: Array<{ id: string; amount: bigint }> = [];
  for (const capture of captures) {
    if (left === 0n) break;
    const taken = refundable(capture) < left ? refundable(capture) : left;
    if (taken <= 0n) continue;
    portions.push({ id: capture.id, amount: taken });
    left -= taken;
  }
  return left === 0n && portions.length > 0 ? portions : undefined;
}

function captureOfRefund(captures: SharedCapture[], givesBack: bigint): string | undefined {
  const only = captures.length === 1 ? captures[0] : undefined;
  return only && givesBack <= refundable(only) ? only.id : undefined;
}

export const chargeCaptures: SharedCaptureIds = {
  providerIdOf,
  nextId,
  takeBack,
  refundPortions,
  captureOfRefund,
};
