import { X509Certificate, createSign, createVerify } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { specDialect, type TransmissionHeaderNames } from './dialects';

/**
 * The webhook transmission signature scheme (PayPal's): an RSA-SHA256 signature, base64, over
 * `transmission_id|transmission_time|webhook_id|crc32(body)` where the CRC-32 of the body's exact bytes
 * is written in decimal. The sandbox signs with it; listeners and the verify endpoint check with it.
 */
export const WEBHOOK_AUTH_ALGO = 'SHA256withRSA';

export interface TransmissionFields {
  transmissionId: string;
  transmissionTime: string;
  webhookId: string;
  /** The delivery body exactly as sent; a string is taken as UTF-8. */
  body: string | Buffer;
}

export interface TransmissionVerification extends TransmissionFields {
  transmissionSig: string;
  certificatePem: string;
  /** When given, must name the scheme above (case-insensitive), as the SERVICE-AUTH-ALGO header does. */
  authAlgo?: string;
  /** The certificate must be valid at this time; defaults to now. */
  now?: Date;
}

/** Unsigned CRC-32 of the body's bytes, in decimal. */
export function crc32Decimal(body: string | Buffer): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return String(crc32(bytes));
}

export function signedMessage({
  transmissionId,
  transmissionTime,
  webhookId,
  body,
}: TransmissionFields): string {
  return `${transmissionId}|${transmissionTime}|${webhookId}|${crc32Decimal(body)}`;
}

/** Base64 RSA-SHA256 signature of `message`. */
export function signTransmission(message: string, privateKeyPem: string): string {
  return createSign('RSA-SHA256').update(message, 'utf8').sign(privateKeyPem, 'base64');
}

/** The five transmission headers of a delivery of `body`, signed as the provider signs; SERVICE-* by default. */
export function signedDeliveryHeaders(
  fields: TransmissionFields & {
    certUrl: string;
    privateKeyPem: string;
    headerNames?: TransmissionHeaderNames;
  },
): Record<string, string> {
  const names = fields.headerNames ?? specDialect.transmissionHeaders;
  return {
    [names.auth_algo]: WEBHOOK_AUTH_ALGO,
    [names.cert_url]: fields.certUrl,
    [names.transmission_id]: fields.transmissionId,
    [names.transmission_sig]: signTransmission(signedMessage(fields), fields.privateKeyPem),
    [names.transmission_time]: fields.transmissionTime,
  };
}

/**
 * True only when the signature matches the fields and body under the certificate's key, the algorithm is
 * the expected one and the certificate is valid now. A bad signature, certificate or algorithm is `false`,
 * never an exception: a forged delivery is an answer, not a failure.
 */
export function verifyTransmission(verification: TransmissionVerification): boolean {
  const { authAlgo, transmissionSig, certificatePem, now = new Date() } = verification;
  if (authAlgo !== undefined && authAlgo.toUpperCase() !== WEBHOOK_AUTH_ALGO.toUpperCase()) return false;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(transmissionSig)) return false;
  try {
    const certificate = new X509Certificate(certificatePem);
    if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) return false;
    return createVerify('RSA-SHA256')
      .update(signedMessage(verification), 'utf8')
      .verify(certificate.publicKey, transmissionSig, 'base64');
  } catch {
    return false;
  }
}
