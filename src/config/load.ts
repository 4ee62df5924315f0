import type { z } from 'zod';
import { everyProductionSetting, productionRefusals, type ProductionSetting } from './production';
import {
  apiSchema,
  charactersSchema,
  configSchema,
  localStackSchema,
  sandboxSchema,
  workerSchema,
  type Config,
} from './programs';
import { underCurrentNames, warnOnce, type RenamedVariable } from './renamed-variables';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type ProgramSchema = z.ZodObject<z.ZodRawShape>;

/**
 * Parses the variables `schema` knows, once; a bad value names the variable and the form expected. In
 * production, the settings in `uses` must be set, and none of them to the local stack's values.
 */
export function loadSettings<Schema extends ProgramSchema>(
  schema: Schema,
  env: NodeJS.ProcessEnv,
  uses: readonly ProductionSetting[],
): z.output<Schema> {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const set = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
  const { env: present, readFrom, warnings } = underCurrentNames(set, Object.keys(schema.shape));
  warnOnce(warnings);
  // A problem with a value names the variable the operator set it under.
  const named = (variable: string) => readFrom[variable as RenamedVariable] ?? variable;
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `  ${[named(String(issue.path[0])), ...issue.path.slice(1)].join('.')}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const settings = parsed.data as Partial<Config>;
  const problems = [
    ...('API_CALLERS' in schema.shape && present.API_CALLERS !== undefined && present.API_KEYS !== undefined
      ? ['  API_KEYS: not with API_CALLERS (give the keys as callers there)']
      : []),
    ...(settings.NODE_ENV === 'production' ? productionRefusals(settings, present, uses, named) : []),
  ];
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return parsed.data;
}

/** Every variable of the service, for the tools that drive all of it; in production, `uses` (by default all). */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  uses: readonly ProductionSetting[] = everyProductionSetting,
): Config {
  return loadSettings(configSchema, env, uses);
}

export const loadApiConfig = (env: NodeJS.ProcessEnv, uses: readonly ProductionSetting[]) =>
  loadSettings(apiSchema, env, uses);
export const loadWorkerConfig = (env: NodeJS.ProcessEnv, uses: readonly ProductionSetting[]) =>
  loadSettings(workerSchema, env, uses);
export const loadSandboxConfig = (env: NodeJS.ProcessEnv, uses: readonly ProductionSetting[]) =>
  loadSettings(sandboxSchema, env, uses);
export const loadCharactersConfig = (env: NodeJS.ProcessEnv, uses: readonly ProductionSetting[]) =>
  loadSettings(charactersSchema, env, uses);
/** `npm start` runs the local stack: production's refusals are the processes' own. */
export const loadLocalStackConfig = (env: NodeJS.ProcessEnv = process.env) =>
  loadSettings(localStackSchema, env, []);
