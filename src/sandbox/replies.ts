import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultInjector, FaultOperation } from './faults';
import type { ProviderAnswer } from './idempotency';
import type { SandboxMode } from './resources';

/**
 * Runs `handle` behind any armed fault of `operation`, then answers. Under `commit-then-drop` the request
 * takes effect (or is refused) as usual, but the connection is destroyed instead of answered, so the
 * caller cannot tell whether it happened.
 */
export async function answer(
  reply: FastifyReply,
  faults: FaultInjector,
  operation: Exclude<FaultOperation, 'any'>,
  handle: () => ProviderAnswer | Promise<ProviderAnswer>,
): Promise<FastifyReply> {
  const { drop } = await faults.enter(operation);
  let result: ProviderAnswer;
  try {
    result = await handle();
  } catch (error) {
    if (!drop) throw error;
    return dropConnection(reply);
  }
  if (drop) return dropConnection(reply);
  return reply.code(result.statusCode).send(result.body);
}

function dropConnection(reply: FastifyReply): FastifyReply {
  reply.hijack();
  reply.raw.destroy();
  return reply;
}

/**
 * Whether a write answers minimal: no body (void) or only id, status and links (other writes). PayPal
 * answers minimal unless `Prefer: return=representation`; the spec mode answers the whole resource unless
 * `Prefer: return=minimal`.
 */
export function answersMinimal(request: FastifyRequest, mode: SandboxMode): boolean {
  const header = request.headers.prefer;
  const prefer = Array.isArray(header) ? header.join(',') : (header ?? '');
  return mode === 'paypal' ? !/return=representation/i.test(prefer) : /return=minimal/i.test(prefer);
}

/** A write's 201: the whole resource, or only its id, status and links when the write answers minimal. */
export function createdAnswer(
  request: FastifyRequest,
  mode: SandboxMode,
  resource: { id: string; status: string; links: unknown },
): ProviderAnswer {
  const body = answersMinimal(request, mode)
    ? { id: resource.id, status: resource.status, links: resource.links }
    : resource;
  return { statusCode: 201, body };
}

/**
 * The idempotency key the caller sent: PayPal-Request-Id in `paypal` mode; in the spec mode
 * Service-Request-Id, or PayPal-Request-Id. Empty counts as none.
 */
export function requestId(request: FastifyRequest, mode: SandboxMode): string | undefined {
  const paypal = request.headers['paypal-request-id'];
  const value = mode === 'paypal' ? paypal : (request.headers['service-request-id'] ?? paypal);
  const id = Array.isArray(value) ? value[0] : value;
  return id ? id : undefined;
}
