import pino from 'pino';
import type { Config } from './config';

/** One pino logger per process; `name` tells which part of the stack wrote the line. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, name: string) {
  return pino({
    name,
    level: config.LOG_LEVEL,
    redact: {
      paths: ['*.authorization', '*.Authorization', '*.client_secret', '*.access_token'],
      censor: '[redacted]',
    },
  });
}

export type Logger = ReturnType<typeof createLogger>;
