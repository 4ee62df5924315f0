import pino from 'pino';
import type { Config } from './config';

/**
 * One pino logger per process; `name` tells which part of the stack wrote the line. In development
 * (`npm start`) one readable line per event through pino-pretty; in test and production one JSON object per
 * line, for log collectors.
 */
export function createLogger(config: Pick<Config, 'LOG_LEVEL' | 'NODE_ENV'>, name: string) {
  const pretty = config.NODE_ENV === 'development';
  return pino({
    name,
    level: config.LOG_LEVEL,
    redact: {
      paths: ['*.authorization', '*.Authorization', '*.client_secret', '*.access_token'],
      censor: '[redacted]',
    },
    ...(pretty && {
      transport: {
        target: 'pino-pretty',
        options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
      },
    }),
  });
}

export type Logger = ReturnType<typeof createLogger>;
