import type { ProviderName } from '../../src/provider-names';

/** How much the model suite runs: `npm test` keeps the defaults, `npm run test:model` takes the environment's. */
export interface ModelSettings {
  /** The provider the lifecycles run on (PROVIDER): paypal by default, or stripe. */
  provider: ProviderName;
  runs: number;
  steps: number;
  /**
   * Replays a reported failure: its seed, its path and the counterexample's replayPath (the comment after its
   * commands) go straight to the shrunk sequence.
   */
  seed?: number;
  path?: string;
  replayPath?: string;
  /** Only these commands (names as in money-model.test.ts), to look past a violation already known. */
  commands?: string[];
  /**
   * Generation and shrinking stop after this long: a failure found so far is reported, and so is a run cut
   * short before MODEL_RUNS. By default a second per step asked, at least 3 minutes.
   */
  timeLimitMs: number;
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`${name}: "${text}" is not a whole number`);
  return value;
}

export function modelSettings(env: NodeJS.ProcessEnv): ModelSettings {
  const seed = env.MODEL_SEED ? whole(env, 'MODEL_SEED', 0) : undefined;
  const runs = whole(env, 'MODEL_RUNS', 10);
  const steps = whole(env, 'MODEL_STEPS', 20);
  const provider = env.PROVIDER || 'paypal';
  if (provider !== 'paypal' && provider !== 'stripe')
    throw new Error(`PROVIDER: "${provider}" is not paypal or stripe`);
  return {
    provider,
    runs,
    steps,
    ...(seed !== undefined && { seed }),
    ...(env.MODEL_PATH && { path: env.MODEL_PATH }),
    ...(env.MODEL_REPLAY_PATH && { replayPath: env.MODEL_REPLAY_PATH }),
    ...(env.MODEL_COMMANDS && { commands: env.MODEL_COMMANDS.split(',').map((name) => name.trim()) }),
    timeLimitMs: whole(env, 'MODEL_TIME_LIMIT_MS', Math.max(180_000, runs * steps * 1_000)),
  };
}
