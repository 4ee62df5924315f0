import { chargeCaptures } from '../../src/providers/stripe/charge-captures';

// Stripe's translation of a multicapture charge's id onto the lifecycle's captures (`<charge>-<n>`).

const capture = (id: string, captured: bigint, refunded = 0n, learned = true) => ({
  id,
  captured,
  refunded,
  learned,
});

describe("Stripe's charge shared by several captures", () => {
  it('names each capture after its charge, one past the highest number booked', () => {
    expect(chargeCaptures.providerIdOf('ch_1-12')).toBe('ch_1');
    expect(chargeCaptures.providerIdOf('ch_1')).toBe('ch_1');
    expect(chargeCaptures.nextId('ch_1', [])).toBe('ch_1-1');
    expect(chargeCaptures.nextId('ch_1', ['ch_1-1', 'ch_1-3', 'ch_2-7', 'pi_1/captured-before-start'])).toBe(
      'ch_1-4',
    );
  });

  it('lets an answer become the learnt capture of its amount, else take back the newest learnt ones', () => {
    expect(chargeCaptures.takeBack([capture('ch_1-1', 2000n), capture('ch_1-2', 3000n)], 3000n)).toEqual({
      becomes: 'ch_1-2',
    });
    // 40.00 answered: ch_1-2 (30.00) whole, then 10.00 of ch_1-1, which keeps 10.00; a refunded one stays.
    const learnt = [capture('ch_1-1', 2000n), capture('ch_1-2', 3000n), capture('ch_1-3', 500n, 100n)];
    expect(chargeCaptures.takeBack(learnt, 4000n)).toEqual({
      takenBack: [
        { id: 'ch_1-2', kept: 0n },
        { id: 'ch_1-1', kept: 1000n },
      ],
    });
  });

  it('spreads a refund of the charge oldest first, or not at all while the captures cannot take it', () => {
    const captures = [capture('ch_1-1', 2000n, 1500n), capture('ch_1-2', 3000n)];
    expect(chargeCaptures.refundPortions(captures, 1000n)).toEqual([
      { id: 'ch_1-1', amount: 500n },
      { id: 'ch_1-2', amount: 500n },
    ]);
    expect(chargeCaptures.refundPortions(captures, 3501n)).toBeUndefined();
  });

  it('gives a refund of the charge to its only capture while that one can give it back', () => {
    expect(chargeCaptures.captureOfRefund([capture('ch_1-1', 2000n, 500n)], 1500n)).toBe('ch_1-1');
    expect(chargeCaptures.captureOfRefund([capture('ch_1-1', 2000n, 500n)], 1501n)).toBeUndefined();
    expect(
      chargeCaptures.captureOfRefund([capture('ch_1-1', 2000n), capture('ch_1-2', 10n)], 0n),
    ).toBeUndefined();
  });
});
