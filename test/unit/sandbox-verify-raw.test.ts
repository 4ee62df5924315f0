import { randomUUID } from 'node:crypto';
import { signTransmission, signedMessage } from '../../src/providers/paypal/webhook-signature';
import { createSigningCertificate, type SigningCertificate } from '../../src/sandbox/paypal/certificate';
import { postVerifyRequest, startHarness, type SandboxHarness } from '../helpers/sandbox-fixtures';

/**
 * The verify endpoint must check the signature over the embedded `webhook_event` exactly as sent. Each body
 * here changes under JSON.parse + JSON.stringify, so a sandbox that re-serialized would answer FAILURE.
 */
const trickyBodies: Record<string, string> = {
  'a decimal written 1.0': '{"id":"WH-1","event_version":1.0,"amount":{"value":10.50}}',
  'an integer beyond 2^53': '{"id":"WH-2","sequence":123456789012345678901234567890}',
  'unicode escapes': '{"id":"WH-3","summary":"caf\\u00e9 \\ud83d\\ude00 \\/ \\"quoted\\""}',
  'odd key order and whitespace': '{\n  "resource" : { "z" : 1 , "a" : [ 1 , 2 ] },\n\t"id" : "WH-4"\r\n}',
  'strings that look like structure':
    '{"id":"WH-5", "note":"}{][,:\\\\\\u0041","webhook_event":{"nested":true}}',
  'raw UTF-8 and exponents': '{"id":"WH-6","name":"Zoë ✓","rate":1E+2,"small":-0.0e-0}',
};

describe('payments sandbox: verify endpoint over raw bytes', () => {
  let signing: SigningCertificate;
  let harness: SandboxHarness;
  beforeAll(async () => {
    signing = await createSigningCertificate(new Date());
    harness = await startHarness({ signingCertificate: signing });
  });
  afterAll(() => harness.close());

  function signedFields(body: string, webhookId: string) {
    const transmissionId = randomUUID();
    const transmissionTime = new Date().toISOString();
    const message = signedMessage({ transmissionId, transmissionTime, webhookId, body });
    return {
      auth_algo: 'SHA256withRSA',
      cert_url: harness.sandbox.certificateUrl,
      transmission_id: transmissionId,
      transmission_sig: signTransmission(message, signing.privateKeyPem),
      transmission_time: transmissionTime,
      webhook_id: webhookId,
    };
  }

  async function verify(raw: string): Promise<string> {
    const response = await postVerifyRequest(harness, raw);
    expect(response.status).toBe(200);
    return (response.data as { verification_status: string }).verification_status;
  }

  it.each(Object.entries(trickyBodies))(
    'SUCCESS for a body with %s, signed over its exact bytes',
    async (_, body) => {
      expect(JSON.stringify(JSON.parse(body))).not.toBe(body);
      const fields = JSON.stringify(signedFields(body, 'WEBHOOK-1'));
      // webhook_event first, then last with extra whitespace: its position must not matter.
      expect(await verify(`{"webhook_event":${body},${fields.slice(1)}`)).toBe('SUCCESS');
      expect(await verify(`${fields.slice(0, -1)} ,\n "webhook_event" :  ${body}  \n}`)).toBe('SUCCESS');
    },
  );

  it.each(Object.entries(trickyBodies))(
    'FAILURE for a body with %s signed after a JSON round trip',
    async (_, body) => {
      const roundTripped = JSON.stringify(JSON.parse(body));
      const fields = JSON.stringify(signedFields(roundTripped, 'WEBHOOK-1'));
      expect(await verify(`${fields.slice(0, -1)},"webhook_event":${body}}`)).toBe('FAILURE');
    },
  );

  it('FAILURE when the certificate URL names a certificate that is not the sandbox’s', async () => {
    const body = trickyBodies['unicode escapes'] ?? '';
    const fields = { ...signedFields(body, 'WEBHOOK-1'), cert_url: 'https://attacker.example/cert.pem' };
    expect(await verify(`${JSON.stringify(fields).slice(0, -1)},"webhook_event":${body}}`)).toBe('FAILURE');
  });

  it('FAILURE for another algorithm', async () => {
    const body = '{"id":"WH-7"}';
    const fields = { ...signedFields(body, 'WEBHOOK-1'), auth_algo: 'SHA1withRSA' };
    expect(await verify(`${JSON.stringify(fields).slice(0, -1)},"webhook_event":${body}}`)).toBe('FAILURE');
  });
});
