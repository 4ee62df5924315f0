import type { FastifyReply } from 'fastify';
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
  return reply
    .code(result.statusCode)
    .headers(result.headers ?? {})
    .send(result.body);
}

function dropConnection(reply: FastifyReply): FastifyReply {
  reply.hijack();
  reply.raw.destroy();
  return reply;
}
