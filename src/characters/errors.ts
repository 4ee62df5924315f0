/** Codes the characters service puts in `extensions.code` of the errors it shows its callers. */
export const characterErrorCodes = {
  notFound: 'CHARACTER_NOT_FOUND',
  internal: 'INTERNAL_SERVER_ERROR',
  badRequest: 'BAD_REQUEST',
  badUserInput: 'BAD_USER_INPUT',
  unauthorized: 'UNAUTHORIZED',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
} as const;

/** An upsert named an id the store does not hold; nothing was stored. */
export class CharacterNotFoundError extends Error {
  override name = 'CharacterNotFoundError';
  readonly code = characterErrorCodes.notFound;

  constructor(readonly characterId: string) {
    super(`character not found: ${characterId}`);
  }
}
