import type { StartOperationContext } from 'nexus-rpc';
import {
  namespacePattern,
  nexusOperationNames,
  type NexusCallers,
  type NexusOperationName,
} from '../nexus-callers';
import { refusal } from './refusal';
import type { paymentsService } from './service';

export type { NexusCallers };
export type PaymentsOperation = keyof typeof paymentsService.operations;
/** Every operation of the service: NEXUS_CALLERS's names (src/nexus-callers.ts) are the service's. */
export const paymentsOperations: readonly PaymentsOperation[] = nexusOperationNames;
// And the other way round: an operation added to the service alone fails to compile here.
export type EveryOperationNamed = [PaymentsOperation] extends [NexusOperationName] ? true : never;
export const everyOperationNamed: EveryOperationNamed = true;

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
