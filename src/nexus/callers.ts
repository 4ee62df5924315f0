import type { StartOperationContext } from 'nexus-rpc';
import { z } from 'zod';
import { ORDERS_NAMESPACE } from './endpoint';
import { refusal } from './refusal';
import { paymentsService } from './service';

export type PaymentsOperation = keyof typeof paymentsService.operations;
export const paymentsOperations = Object.keys(paymentsService.operations) as PaymentsOperation[];

/** Caller namespace → the operations it may call. */
export type NexusCallers = ReadonlyMap<string, ReadonlySet<PaymentsOperation>>;

// A caller namespace is a Temporal namespace name; "/" never occurs in one, so it can delimit ids.
const namespacePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

/**
 * `NEXUS_CALLERS`: `namespace:operation+operation,namespace:*`, e.g.
 * `orders:startLifecycle+capture+void+state+awaitOutcome`; `*` is every operation.
 */
export const nexusCallersSchema = z.string().transform((value, context): NexusCallers => {
  const callers = new Map<string, Set<PaymentsOperation>>();
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [namespace = '', operations = ''] = item.split(':');
    const names = operations === '*' ? paymentsOperations : operations.split('+').filter(Boolean);
    const unknown = names.filter((name) => !paymentsOperations.includes(name as PaymentsOperation));
    let problem: string | undefined;
    if (!namespacePattern.test(namespace) || item.split(':').length !== 2 || names.length === 0)
      problem = `each caller is namespace:operation+operation (or namespace:*), got "${item}"`;
    else if (unknown.length > 0)
      problem = `unknown operation "${unknown[0]}"; operations are ${paymentsOperations.join(', ')}`;
    else if (callers.has(namespace)) problem = `namespace "${namespace}" is given twice`;
    if (problem) {
      context.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    callers.set(namespace, new Set(names as PaymentsOperation[]));
  }
  return callers;
});

/**
 * The allowed callers: NEXUS_CALLERS; unset, outside production the local stack's `orders` namespace may call
 * everything (examples/orders), and in production no namespace may call anything.
 */
export function nexusCallersFromConfig(config: { NODE_ENV: string; NEXUS_CALLERS?: NexusCallers }): NexusCallers {
  if (config.NEXUS_CALLERS) return config.NEXUS_CALLERS;
  if (config.NODE_ENV === 'production') return new Map();
  return new Map([[ORDERS_NAMESPACE, new Set(paymentsOperations)]]);
}

const WORKFLOW_EVENT_LINK = 'temporal.api.common.v1.Link.WorkflowEvent';

/**
 * The namespace of the calling workflow. The server, not the caller, writes this link: it points at the
 * caller's NexusOperationScheduled event, in the caller's namespace (a workflow's schedule command carries no
 * links). A caller that adds a `Nexus-Link` header of its own makes two links, which is refused. Only a client
 * allowed to dispatch to the endpoint directly (the server's authorizer guards that, see docs/nexus.md) could
 * write one link of its choosing.
 */
export function callerNamespace(ctx: Pick<StartOperationContext, 'inboundLinks'>): string | undefined {
  const links = ctx.inboundLinks.filter((link) => link.type === WORKFLOW_EVENT_LINK);
  if (links.length !== 1) return undefined;
  const url = links[0]!.url;
  if (url.protocol !== 'temporal:') return undefined;
  const match = /^\/namespaces\/([^/]+)\/workflows\//.exec(url.pathname);
  if (!match) return undefined;
  const namespace = decodeURIComponent(match[1]!);
  return namespacePattern.test(namespace) ? namespace : undefined;
}

/**
 * The caller namespace when it may call the operation; otherwise an UNAUTHORIZED handler error, which is
 * never retried. The message names neither the allowed namespaces nor the operations.
 */
export function authorizedCaller(
  callers: NexusCallers,
  ctx: Pick<StartOperationContext, 'inboundLinks'>,
  operation: PaymentsOperation,
): string {
  const namespace = callerNamespace(ctx);
  if (namespace === undefined) {
    throw refusal('UNAUTHORIZED', 'the calling namespace is unknown (one workflow link expected)');
  }
  if (!callers.get(namespace)?.has(operation)) {
    throw refusal('UNAUTHORIZED', `namespace "${namespace}" may not call payments.${operation}`);
  }
  return namespace;
}
