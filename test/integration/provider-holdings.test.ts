import type { Sandbox } from '../../src/sandbox/server';
import type { PaymentsProvider } from '../../src/providers/port';
import { providerFixtures } from '../helpers/provider-fixtures';

// Reconciliation's read (PaymentsProvider.readHoldings) against each provider's sandbox: what the provider
// holds of an authorization, its capture and its refunds, in the lifecycle's vocabulary; what it does not
// hold is `absent`.

describe.each(providerFixtures)('readHoldings at $name', (fixture) => {
  let sandbox: Sandbox;
  let provider: PaymentsProvider;

  beforeAll(async () => {
    sandbox = await fixture.startSandbox();
    provider = fixture.provider(sandbox);
  });
  afterAll(() => sandbox.close());

  it('finds the capture and a refund the lifecycle never heard of, and names what it does not hold', async () => {
    const authorizationId = await fixture.authorize(sandbox, '40.00');
    const capture = await provider.captureAuthorization({
      authorizationId,
      amount: { currency_code: 'USD', value: '40.00' },
      finalCapture: true,
      idempotencyKey: `capture-${authorizationId}`,
    });
    const refund = await provider.refundCapture({
      captureId: capture.id,
      amount: { currency_code: 'USD', value: '15.00' },
      idempotencyKey: `refund-${authorizationId}`,
    });

    const holdings = await provider.readHoldings({
      authorizationIds: [authorizationId],
      captureIds: [capture.id],
      // PayPal reads the refunds it is told of; Stripe lists the charge's.
      refunds: [
        { id: refund.id, captureId: capture.id },
        { id: `${fixture.name === 'stripe' ? 're' : 'RF'}_UNKNOWN1`, captureId: capture.id },
      ],
    });

    expect(holdings.authorizations.map((authorization) => authorization.id)).toEqual([authorizationId]);
    expect(holdings.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          eventType: 'capture.completed',
          captureId: capture.id,
          amount: expect.objectContaining({ value: '40.00' }),
        }),
        expect.objectContaining({
          eventType: 'capture.refunded',
          refundId: refund.id,
          captureId: capture.id,
          movement: 'refund',
          amount: expect.objectContaining({ value: '15.00' }),
        }),
      ]),
    );
    expect(holdings.absent).toEqual([`${fixture.name === 'stripe' ? 're' : 'RF'}_UNKNOWN1`]);
  });
});
