import type { TransmissionHeaderNames } from './dialects';
import {
  deliveryBodyBytes,
  deliveryHeader,
  EMPTY_DELIVERY_BODY_MESSAGE,
  type WebhookDelivery,
} from '../webhook-delivery';
import { verifyTransmission } from './webhook-signature';
import type { SignatureCheck } from '../events';
import type { CertificateCache } from './certificate-cache';

/**
 * The local verification mode: checks a delivery's signature without asking the provider, by CRC-32 of the
 * raw body and RSA-SHA256 under the certificate at cert_url (allow-listed, cached). Same answer as the
 * provider's verify-webhook-signature (the api mode), one round trip less.
 */
export async function verifyDeliveryLocally(
  delivery: WebhookDelivery,
  webhookId: string,
  headerNames: TransmissionHeaderNames,
  certificates: CertificateCache,
): Promise<SignatureCheck> {
  const failure = (reason: string): SignatureCheck => ({ verification_status: 'FAILURE', reason });
  const body = deliveryBodyBytes(delivery);
  if (body.length === 0) return failure(EMPTY_DELIVERY_BODY_MESSAGE);
  const header = (name: keyof TransmissionHeaderNames) => deliveryHeader(delivery, headerNames[name]);
  const [authAlgo, certUrl, transmissionId, transmissionSig, transmissionTime] = [
    header('auth_algo'),
    header('cert_url'),
    header('transmission_id'),
    header('transmission_sig'),
    header('transmission_time'),
  ];
  if (!authAlgo || !certUrl || !transmissionId || !transmissionSig || !transmissionTime) {
    return failure('a transmission header is missing');
  }
  const certificate = await certificates.certificate(certUrl);
  if ('refused' in certificate) return failure(certificate.refused);
  const verified = verifyTransmission({
    authAlgo,
    transmissionId,
    transmissionTime,
    transmissionSig,
    webhookId,
    body,
    certificatePem: certificate.pem,
  });
  return verified ? { verification_status: 'SUCCESS' } : failure('the signature does not match');
}
