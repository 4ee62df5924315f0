import { generate } from 'selfsigned';
import { certificateId } from './ids';

/** Where the sandbox serves its signing certificates; a delivery's SERVICE-CERT-URL points here. */
export const CERTIFICATE_PATH = '/v1/notifications/certs/';

export function certificateUrl(baseUrl: string, id: string): string {
  return `${baseUrl}${CERTIFICATE_PATH}${id}`;
}

export interface SigningCertificate {
  id: string;
  certificatePem: string;
  privateKeyPem: string;
}

/** A fresh RSA key and self-signed X.509 certificate that sign this sandbox's webhook deliveries. */
export async function createSigningCertificate(now: Date): Promise<SigningCertificate> {
  const notAfterDate = new Date(now);
  notAfterDate.setFullYear(notAfterDate.getFullYear() + 1);
  const pems = await generate(
    [{ name: 'commonName', value: 'messageverificationcerts.payments-sandbox.local' }],
    {
      keyType: 'rsa',
      keySize: 2048,
      algorithm: 'sha256',
      notBeforeDate: new Date(now.getTime() - 60_000),
      notAfterDate,
    },
  );
  return { id: certificateId(), certificatePem: pems.cert, privateKeyPem: pems.private };
}
