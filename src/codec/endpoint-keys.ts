import { AsyncLocalStorage } from 'node:async_hooks';
import type { SerializationContext } from '@temporalio/common';
import { z } from 'zod';
import { DEV_CALLER_NAMESPACE } from '../nexus-callers';
import { codecKeysFromFile } from './codec-keys';
import { codecKeysSchema } from './key-schema';
import type { CodecKey } from './payload-encryption';

// What crosses the Nexus endpoint (operation inputs, answers, refusals, the awaited outcome) is encrypted with
// the caller's endpoint key, which the caller and our worker hold; everything else stays under
// PAYLOAD_CODEC_KEYS, which no caller holds.

/** Caller namespace → its endpoint keys, the first encrypting. */
export type EndpointKeys = ReadonlyMap<string, readonly CodecKey[]>;

/** `NEXUS_ENDPOINT_KEYS`: `namespace=keyId:base64`, comma-separated; a namespace's first key encrypts. */
export const endpointKeysSchema = z.string().transform((value, context): EndpointKeys => {
  const keys = new Map<string, CodecKey[]>();
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const equals = item.indexOf('=');
    const parsed = codecKeysSchema.safeParse(item.slice(equals + 1));
    if (equals <= 0 || !parsed.success) {
      const why = parsed.success ? 'no namespace' : parsed.error.issues[0]!.message;
      context.addIssue({ code: 'custom', message: `each endpoint key is namespace=keyId:base64 (${why})` });
      return z.NEVER;
    }
    const namespace = item.slice(0, equals);
    keys.set(namespace, [...(keys.get(namespace) ?? []), ...parsed.data]);
  }
  return keys;
});

/** Where the local stack keeps the `orders` namespace's generated endpoint key (git-ignored). */
export const DEV_ENDPOINT_KEY_FILE = '.data/nexus-endpoint-key-orders';

/**
 * NEXUS_ENDPOINT_KEYS; unset, outside production a generated key for `orders` in .data/ (examples/orders
 * reads the same file), and in production none.
 */
export function endpointKeysFromConfig(
  config: { NODE_ENV: string; NEXUS_ENDPOINT_KEYS?: EndpointKeys },
  devKeyFile = DEV_ENDPOINT_KEY_FILE,
): EndpointKeys {
  if (config.NEXUS_ENDPOINT_KEYS) return config.NEXUS_ENDPOINT_KEYS;
  if (config.NODE_ENV === 'production') return new Map();
  return new Map([[DEV_CALLER_NAMESPACE, codecKeysFromFile(devKeyFile, 'orders-endpoint-dev')]]);
}

/** awaitOutcome's workflows: `payment-outcome/<caller namespace>/…` (src/nexus/outcome-waits.ts). */
export const OUTCOME_WORKFLOW_PREFIX = 'payment-outcome/';

function outcomeWorkflowCaller(workflowId: string): string | undefined {
  if (!workflowId.startsWith(OUTCOME_WORKFLOW_PREFIX)) return undefined;
  return workflowId.slice(OUTCOME_WORKFLOW_PREFIX.length).split('/')[0] || undefined;
}

const answeringFor = new AsyncLocalStorage<string>();

/**
 * Called first thing (before any await) in a Nexus handler that knows its caller: the task's answer or
 * failure, which the SDK encodes after the handler returns, in the same chain of promises, is then sealed
 * with the caller's endpoint key. `enterWith`, unlike `run`, reaches that code: it continues from here.
 */
export function answerWithCallerKey(caller: string): void {
  answeringFor.enterWith(caller);
}

/**
 * The codec's choice of key: a Nexus handler's answer (encoded without a serialization context) and a
 * paymentOutcome workflow's payloads (its result completes the caller's operation) use the caller's endpoint
 * key; anything else (undefined) the namespace's own.
 */
export function endpointKeyFor(keys: EndpointKeys) {
  return (context: SerializationContext | undefined): CodecKey | undefined => {
    const caller =
      context === undefined
        ? answeringFor.getStore()
        : context.type === 'workflow'
          ? outcomeWorkflowCaller(context.workflowId)
          : undefined;
    return caller === undefined ? undefined : keys.get(caller)?.[0];
  };
}
