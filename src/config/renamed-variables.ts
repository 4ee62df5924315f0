/**
 * PayPal's settings under the names they had before 1.0 (PAYMENTS_*), each with its PayPal name. The old
 * names are read through 1.0, each with one warning at start-up naming the new one.
 */
export const renamedVariables = {
  PAYPAL_BASE_URL: 'PAYMENTS_BASE_URL',
  PAYPAL_DIALECT: 'PAYMENTS_DIALECT',
  PAYPAL_CLIENT_ID: 'PAYMENTS_CLIENT_ID',
  PAYPAL_CLIENT_SECRET: 'PAYMENTS_CLIENT_SECRET',
  PAYPAL_ACCESS_TOKEN: 'PAYMENTS_ACCESS_TOKEN',
} as const;

export type RenamedVariable = keyof typeof renamedVariables;

/** The environment under the current names, and what to tell the operator about the old ones it used. */
export interface RenamedEnvironment {
  env: Record<string, string>;
  /** The name each renamed setting was read from, for messages about its value. */
  readFrom: Partial<Record<RenamedVariable, string>>;
  warnings: string[];
}

/**
 * Reads each old name into its new one; where both are set, the new one wins. Only the settings in `reads`
 * (by default all): a program is told only of the names it reads.
 */
export function underCurrentNames(
  env: Record<string, string>,
  reads: readonly string[] = Object.keys(renamedVariables),
): RenamedEnvironment {
  const current = { ...env };
  const readFrom: RenamedEnvironment['readFrom'] = {};
  const warnings: string[] = [];
  for (const [name, oldName] of Object.entries(renamedVariables) as [RenamedVariable, string][]) {
    const old = env[oldName];
    if (old === undefined || !reads.includes(name)) continue;
    delete current[oldName];
    if (env[name] !== undefined) {
      warnings.push(`${oldName} and ${name} are both set: ${name} wins; ${oldName} is its old name, drop it`);
      continue;
    }
    current[name] = old;
    readFrom[name] = oldName;
    warnings.push(`${oldName} is read as ${name}, its name from 1.0: set ${name} instead`);
  }
  return { env: current, readFrom, warnings };
}

const warned = new Set<string>();

/** Each warning once per process, however often the configuration is read. */
export function warnOnce(warnings: readonly string[], write: (line: string) => void = console.warn): void {
  for (const warning of warnings) {
    if (warned.has(warning)) continue;
    warned.add(warning);
    write(`Configuration: ${warning}`);
  }
}

/**
 * What a parent process hands its children so that they read the current names only (the parent has warned):
 * each old name unset, its value under the new name unless that is set.
 */
export function currentNamesForChildren(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const overrides: NodeJS.ProcessEnv = {};
  for (const [name, oldName] of Object.entries(renamedVariables)) {
    const old = env[oldName];
    if (old === undefined || old === '') continue;
    overrides[oldName] = undefined;
    if (env[name] === undefined || env[name] === '') overrides[name] = old;
  }
  return overrides;
}
