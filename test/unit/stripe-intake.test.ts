import { stripeProvider } from '../../src/providers/stripe/provider';
import { stripeSignatureHeader, verifyStripeSignature } from '../../src/providers/stripe/webhook-signature';
import { stripeDeliveryIntake } from '../../src/providers/stripe/delivery-intake';

const secrets = ['whsec_old', 'whsec_new'];
const now = new Date();
const unix = Math.floor(now.getTime() / 1000);
const event = JSON.stringify({ id: 'evt_1', object: 'event' });
const screen = (header: string, body = event, receivedAt = now) =>
  stripeDeliveryIntake({ secrets }).screen({ headers: { 'Stripe-Signature': header }, body }, receivedAt);

describe("Stripe's intake (the official SDK's check, before any run)", () => {
  it("takes a delivery signed by either secret, under its event's id", async () => {
    expect(await screen(stripeSignatureHeader(event, ['whsec_new'], unix))).toEqual({ id: 'evt_1' });
    expect(await screen(stripeSignatureHeader(event, ['whsec_old'], unix))).toEqual({ id: 'evt_1' });
  });

  it.each([
    ['another secret', stripeSignatureHeader(event, ['whsec_other'], unix), event],
    ['a body changed after signing', stripeSignatureHeader(event, ['whsec_new'], unix), `${event} `],
    ['a t= 330 s behind', stripeSignatureHeader(event, ['whsec_new'], unix - 330), event],
    ['a t= 330 s ahead', stripeSignatureHeader(event, ['whsec_new'], unix + 330), event],
    ['no t=', `v1=${'a'.repeat(64)}`, event],
    ['no v1=', `t=${unix}`, event],
  ])('refuses %s, naming the header', async (_what, header, body) => {
    const screening = await screen(header, body);
    expect(screening).toEqual({ refused: expect.stringMatching(/^Stripe-Signature: /) });
  });

  it('refuses a signed body that is no Stripe event', async () => {
    const body = JSON.stringify({ id: 'not-an-event' });
    expect(await screen(stripeSignatureHeader(body, ['whsec_new'], unix), body)).toEqual({
      refused: 'the delivery body is not a Stripe event: no id evt_…',
    });
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
