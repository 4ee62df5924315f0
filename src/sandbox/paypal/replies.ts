import type { FastifyRequest } from 'fastify';
import type { PaymentsDialectName } from '../../providers/paypal/dialects';
import type { ProviderAnswer } from '../idempotency';

/**
 * Whether a write answers minimal: no body (void) or only id, status and links (other writes). PayPal
 * answers minimal unless `Prefer: return=representation`; the spec mode answers the whole resource unless
 * `Prefer: return=minimal`.
 */
export function answersMinimal(request: FastifyRequest, dialect: PaymentsDialectName): boolean {
  const header = request.headers.prefer;
  const prefer = Array.isArray(header) ? header.join(',') : (header ?? '');
  return dialect === 'paypal' ? !/return=representation/i.test(prefer) : /return=minimal/i.test(prefer);
}

/** A write's 201: the whole resource, or only its id, status and links when the write answers minimal. */
export function createdAnswer(
  request: FastifyRequest,
  dialect: PaymentsDialectName,
  resource: { id: string; status: string; links: unknown },
): ProviderAnswer {
  const body = answersMinimal(request, dialect)
    ? { id: resource.id, status: resource.status, links: resource.links }
    : resource;
  return { statusCode: 201, body };
}

/**
 * The idempotency key the caller sent: PayPal-Request-Id in `paypal` mode; in the spec mode
 * Service-Request-Id, or PayPal-Request-Id. Empty counts as none.
 */
export function requestId(request: FastifyRequest, dialect: PaymentsDialectName): string | undefined {
  const paypal = request.headers['paypal-request-id'];
  const value = dialect === 'paypal' ? paypal : (request.headers['service-request-id'] ?? paypal);
  const id = Array.isArray(value) ? value[0] : value;
  return id ? id : undefined;
}
