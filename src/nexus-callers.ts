import { z } from 'zod';

// Who may call the payments Nexus service (src/nexus/): the setting, parsed with the rest of the configuration.

/** The payments service's operations (src/nexus/service.ts checks that they are its own). */
export const nexusOperationNames = [
  'startLifecycle',
  'capture',
  'void',
  'complete',
  'increment',
  'reauthorize',
  'state',
  'awaitOutcome',
] as const;
export type NexusOperationName = (typeof nexusOperationNames)[number];

/** Caller namespace → the operations it may call. */
export type NexusCallers = ReadonlyMap<string, ReadonlySet<NexusOperationName>>;

/** The namespace of the example order system (examples/orders), which `npm start` creates. */
export const DEV_CALLER_NAMESPACE = 'orders';

/** A Temporal namespace name; "/" and ":" never occur in one, so they can delimit ids. */
export const namespacePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

/**
 * `NEXUS_CALLERS`: `namespace:operation+operation,namespace:*`, e.g.
 * `orders:startLifecycle+capture+void+state+awaitOutcome`; `*` is every operation.
 */
export const nexusCallersSchema = z.string().transform((value, context): NexusCallers => {
  const callers = new Map<string, Set<NexusOperationName>>();
  const known: readonly string[] = nexusOperationNames;
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [namespace = '', operations = ''] = item.split(':');
    const names = operations === '*' ? [...known] : operations.split('+').filter(Boolean);
    const unknown = names.filter((name) => !known.includes(name));
    let problem: string | undefined;
    if (!namespacePattern.test(namespace) || item.split(':').length !== 2 || names.length === 0)
      problem = `each caller is namespace:operation+operation (or namespace:*), got "${item}"`;
    else if (unknown.length > 0)
      problem = `unknown operation "${unknown[0]}"; operations are ${known.join(', ')}`;
    else if (callers.has(namespace)) problem = `namespace "${namespace}" is given twice`;
    if (problem) {
      context.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    callers.set(namespace, new Set(names as NexusOperationName[]));
  }
  return callers;
});

/**
 * The allowed callers: NEXUS_CALLERS; unset, outside production the local stack's `orders` namespace may call
 * everything (examples/orders), and in production no namespace may call anything.
 */
export function nexusCallersFromConfig(config: {
  NODE_ENV: string;
  NEXUS_CALLERS?: NexusCallers;
}): NexusCallers {
  if (config.NEXUS_CALLERS) return config.NEXUS_CALLERS;
  if (config.NODE_ENV === 'production') return new Map();
  return new Map([[DEV_CALLER_NAMESPACE, new Set(nexusOperationNames)]]);
}
