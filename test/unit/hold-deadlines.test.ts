import { holdDeadlines } from '../../src/workflows/lifecycle/hold-deadlines';

// When a hold's timers run, from each provider's facts: PayPal's honor period, Stripe's capture_before.

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const madeAt = Date.parse('2026-12-01T10:00:00.000Z');
const iso = (at: number) => new Date(at).toISOString();

describe("a hold's deadlines", () => {
  it('reauthorize a PayPal hold when its 3-day honor period ends, and apply the policy an hour before its 29 days', () => {
    const deadlines = holdDeadlines({ madeAt, endsAt: madeAt + 29 * DAY, honorPeriodMs: 3 * DAY }, {});
    expect(deadlines).toEqual({
      reauthorizeAt: iso(madeAt + 3 * DAY),
      expiryPolicyAt: iso(madeAt + 29 * DAY - HOUR),
      reasons: {
        reauthorize: "the provider's honor period of 3 days ends: a reauthorization renews the funds",
        expiryPolicy: '29 days after the authorization',
      },
    });
  });

  it('reauthorize a Stripe hold a day before its capture_before, and apply the policy an hour before it', () => {
    const endsAt = madeAt + 7 * DAY;
    expect(holdDeadlines({ madeAt, endsAt }, {})).toEqual({
      reauthorizeAt: iso(endsAt - DAY),
      expiryPolicyAt: iso(endsAt - HOUR),
      reasons: {
        reauthorize: `a day before the hold ends at ${iso(endsAt)}`,
        expiryPolicy: `an hour before the hold ends at ${iso(endsAt)}`,
      },
    });
    // A Visa merchant-initiated hold ends after 4 days 18 hours: its reauthorization comes before day 4.
    const mit = madeAt + 4 * DAY + 18 * HOUR;
    expect(holdDeadlines({ madeAt, endsAt: mit }, {}).reauthorizeAt).toBe(iso(mit - DAY));
  });

  it("follow the start's durations where it gives them, unless the hold ends first", () => {
    const endsAt = madeAt + 7 * DAY;
    expect(
      holdDeadlines({ madeAt, endsAt }, { reauthorizeAfter: 2 * DAY, expiryPolicyAfter: 5 * DAY }),
    ).toEqual({
      reauthorizeAt: iso(madeAt + 2 * DAY),
      expiryPolicyAt: iso(madeAt + 5 * DAY),
      reasons: {
        reauthorize: 'reauthorizeAfter: 2 days after the authorization',
        expiryPolicy: 'expiryPolicyAfter: 5 days after the authorization',
      },
    });
    expect(holdDeadlines({ madeAt, endsAt }, { expiryPolicyAfter: 20 * DAY }).expiryPolicyAt).toBe(
      iso(endsAt - HOUR),
    );
  });

  it('reauthorize after 3 days a hold whose provider says neither its end nor an honor period', () => {
    expect(holdDeadlines({ madeAt, endsAt: undefined }, {})).toMatchObject({
      reauthorizeAt: iso(madeAt + 3 * DAY),
      expiryPolicyAt: iso(madeAt + 29 * DAY - HOUR),
      reasons: { reauthorize: '3 days after the authorization' },
    });
  });
});
