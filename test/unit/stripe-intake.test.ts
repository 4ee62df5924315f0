import { stripeProvider } from '../../src/providers/stripe/provider';
import { stripeSignatureHeader, verifyStripeSignature } from '../../src/providers/stripe/webhook-signature';
import { readStripeSignatureHeader, signedByEndpoint } from '../../src/webhooks/stripe-signature';

const hex = (digit: string) => digit.repeat(64);

describe('reading Stripe-Signature', () => {
  it('takes t= and every v1=, ignoring other schemes and spaces', () => {
    expect(readStripeSignatureHeader(`t=1780000000, v1=${hex('a')},v0=${hex('c')},v1=${hex('b')}`)).toEqual({
      timestamp: 1_780_000_000,
      signatures: [hex('a'), hex('b')],
    });
  });

  it.each([
    ['', 'no t='],
    [`v1=${hex('a')}`, 'no t='],
    [`t=12.5,v1=${hex('a')}`, 'not one whole-number t='],
    [`t=1,t=2,v1=${hex('a')}`, 'not one whole-number t='],
    ['t=1780000000', 'no v1= signature'],
    ['t=1780000000,v1=ABC', 'a v1= that is not 64 hex digits'],
  ])('calls %j garbled: %s', (header, reason) => {
    expect(readStripeSignatureHeader(header)).toBe(reason);
  });
});

describe("the intake's HMAC check", () => {
  it('agrees with the official SDK: any v1 under any secret, and nothing else', () => {
    const body = JSON.stringify({ id: 'evt_1', object: 'event' });
    const t = 1_780_000_000;
    const read = (header: string) =>
      readStripeSignatureHeader(header) as Exclude<ReturnType<typeof readStripeSignatureHeader>, string>;
    const both = read(stripeSignatureHeader(body, ['whsec_old', 'whsec_new'], t));
    expect(both.signatures).toHaveLength(2);
    expect(signedByEndpoint(both, body, ['whsec_new'])).toBe(true);
    expect(signedByEndpoint(both, body, ['whsec_other', 'whsec_old'])).toBe(true);
    expect(signedByEndpoint(both, body, ['whsec_other'])).toBe(false);
    expect(signedByEndpoint(both, `${body} `, ['whsec_new'])).toBe(false);
    expect(signedByEndpoint({ ...both, timestamp: t + 1 }, body, ['whsec_new'])).toBe(false);
    const sdkHeader = stripeSignatureHeader(body, ['whsec_new'], Math.floor(Date.now() / 1000));
    const sdkCheck = verifyStripeSignature({ headers: { 'stripe-signature': sdkHeader }, body }, [
      'whsec_new',
    ]);
    expect([sdkCheck.verification_status, signedByEndpoint(read(sdkHeader), body, ['whsec_new'])]).toEqual([
      'SUCCESS',
      true,
    ]);
  });
});

describe("the Stripe provider's verification in the run", () => {
  it('checks the signature alone: the intake checked t= on receipt, the run may come much later', async () => {
    const body = JSON.stringify({ id: 'evt_1', object: 'event' });
    const signedAt = Math.floor(Date.now() / 1000) - 3600;
    const header = stripeSignatureHeader(body, ['whsec_a'], signedAt);
    const delivery = { headers: { 'Stripe-Signature': header }, body };
    expect(verifyStripeSignature(delivery, ['whsec_a']).verification_status).toBe('FAILURE');
    const provider = stripeProvider({ apiKey: 'sk_test_x', webhookSecrets: ['whsec_a'] });
    expect((await provider.verifyDelivery(delivery, '', 'local')).verification_status).toBe('SUCCESS');
    const other = stripeProvider({ apiKey: 'sk_test_x', webhookSecrets: ['whsec_b'] });
    expect((await other.verifyDelivery(delivery, '', 'local')).verification_status).toBe('FAILURE');
  });
});
