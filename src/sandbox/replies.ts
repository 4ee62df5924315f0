import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultInjector, FaultOperation } from './faults';
import type { ProviderAnswer } from './idempotency';

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

/** `Prefer: return=minimal` asks for no body (void) or only id, status and links (other writes). */
export function prefersMinimal(request: FastifyRequest): boolean {
  const prefer = request.headers.prefer;
  return /return=minimal/i.test(Array.isArray(prefer) ? prefer.join(',') : (prefer ?? ''));
}

/** The idempotency key the caller sent: Service-Request-Id, or PayPal's PayPal-Request-Id. Empty counts as none. */
export function requestId(request: FastifyRequest): string | undefined {
  const value = request.headers['service-request-id'] ?? request.headers['paypal-request-id'];
  const id = Array.isArray(value) ? value[0] : value;
  return id ? id : undefined;
}
