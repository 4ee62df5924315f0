import { z } from 'zod';
import { codecKeysSchema } from '../codec/key-schema';
import type { OperatorTokenSettings } from '../codec/operator-tokens';
import { settingsPiece, type SettingsOf } from './piece';

/** Payload encryption (src/codec) and the codec server on the API. */
export const codecSettings = settingsPiece(
  'Payload encryption and the codec server',
  {
    PAYLOAD_CODEC_KEYS: codecKeysSchema.optional(),
    CODEC_CORS_ORIGINS: z
      .string()
      .transform((value) => value.split(',').map((item) => item.trim().replace(/\/+$/, '')))
      .pipe(z.array(z.url({ message: 'comma-separated origins such as http://localhost:8233' })))
      .optional(),
    CODEC_OIDC_ISSUER: z.url({ message: 'the issuer identifier, e.g. https://login.example.com' }).optional(),
    CODEC_OIDC_AUDIENCE: z.string().min(1).optional(),
    CODEC_OIDC_SCOPE: z.string().regex(/^\S+$/, 'one scope, no spaces').default('codec'),
  },
  {
    PAYLOAD_CODEC_KEYS: {
      default: 'dev key in `.data/`',
      meaning: '`keyId:base64-32-byte-key,…`: the first encrypts, all decrypt; required in production',
    },
    CODEC_CORS_ORIGINS: {
      default: 'the local Web UI',
      meaning:
        'browser origins allowed to call `/codec/*`; default `http://localhost:$TEMPORAL_UI_PORT` and 127.0.0.1',
    },
    CODEC_OIDC_ISSUER: {
      meaning:
        "the operators' OpenID provider (issuer identifier; https in production): the codec server accepts its " +
        'JWT access tokens ([Security](./security.md#decoding-in-production))',
    },
    CODEC_OIDC_AUDIENCE: { default: 'unset (any)', meaning: "the `aud` an operator's token must name" },
    CODEC_OIDC_SCOPE: {
      meaning: "the scope in an operator's token (`scope` or `scp`) that allows decoding",
    },
  },
);

type CodecConfig = SettingsOf<typeof codecSettings>;

/** The origins whose browsers may call the codec server. */
export function codecCorsOrigins(
  config: Pick<CodecConfig, 'CODEC_CORS_ORIGINS'> & { TEMPORAL_UI_PORT: number },
): string[] {
  return (
    config.CODEC_CORS_ORIGINS ?? [
      `http://localhost:${config.TEMPORAL_UI_PORT}`,
      `http://127.0.0.1:${config.TEMPORAL_UI_PORT}`,
    ]
  );
}

/** The operators' tokens the codec server accepts: CODEC_OIDC_ISSUER's, or none. */
export function codecOperatorTokens(
  config: Pick<CodecConfig, 'CODEC_OIDC_ISSUER' | 'CODEC_OIDC_AUDIENCE' | 'CODEC_OIDC_SCOPE'>,
): OperatorTokenSettings | undefined {
  if (!config.CODEC_OIDC_ISSUER) return undefined;
  return {
    issuer: config.CODEC_OIDC_ISSUER,
    audience: config.CODEC_OIDC_AUDIENCE,
    scope: config.CODEC_OIDC_SCOPE,
  };
}
