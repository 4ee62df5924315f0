import type { SerializationContext } from '@temporalio/common';
// The SDK's store for the Nexus task being handled: the same object from the operation's start to the
// encoding of its answer, hence the key of `callers` below.
import { asyncLocalStorage } from '@temporalio/nexus/lib/context';
import { z } from 'zod';
import { codecKeysFromFile } from '../codec/codec-keys';
import type { CodecKey } from '../codec/payload-encryption';
import { codecKeysSchema } from '../codec/key-schema';
import { ORDERS_NAMESPACE } from './endpoint';
import { outcomeWorkflowCaller } from './outcome-waits';

// What crosses the endpoint (operation inputs, answers, failures, the awaited outcome) is encrypted with the
// caller's endpoint key, which the caller and our worker hold; everything else stays under PAYLOAD_CODEC_KEYS,
// which no caller holds.

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
      const why = parsed.success ? 'namespace=keyId:base64' : parsed.error.issues[0]!.message;
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
  return new Map([[ORDERS_NAMESPACE, codecKeysFromFile(devKeyFile, 'orders-endpoint-dev')]]);
}

const callers = new WeakMap<object, string>();

/** Called by a handler once it knows its caller: the answer and failure of this task use its endpoint key. */
export function rememberNexusCaller(caller: string): void {
  const task = asyncLocalStorage.getStore();
  if (task) callers.set(task, caller);
}

/**
 * The codec's choice of key: a Nexus handler's answer (encoded without a serialization context, inside the
 * task) and a paymentOutcome workflow's payloads (its result completes the caller's operation) use the
 * caller's endpoint key; anything else the namespace's own.
 */
export function endpointKeyFor(keys: EndpointKeys) {
  return (context: SerializationContext | undefined): CodecKey | undefined => {
    let caller: string | undefined;
    if (context === undefined) {
      const task = asyncLocalStorage.getStore();
      caller = task && callers.get(task);
    } else if (context.type === 'workflow') {
      caller = outcomeWorkflowCaller(context.workflowId);
    }
    return caller === undefined ? undefined : keys.get(caller)?.[0];
  };
}
