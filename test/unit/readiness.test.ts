import { buildCharactersServer } from '../../src/characters/server';
import type { CharacterStore } from '../../src/characters/store';
import { READINESS_PATH } from '../../src/readiness';
import { startSandbox } from '../../src/sandbox/server';

// What `npm start`, `npm run cluster` and docker-compose.yml wait for; the API's is in test/integration.
describe(`every HTTP service answers ${READINESS_PATH} once ready`, () => {
  it('the payments sandbox, in both modes', async () => {
    for (const mode of ['spec', 'paypal'] as const) {
      const sandbox = await startSandbox({ mode, logger: false });
      try {
        const answer = await fetch(`${sandbox.url}${READINESS_PATH}`);
        expect(answer.status).toBe(200);
      } finally {
        await sandbox.close();
      }
    }
  });

  it('the characters service, without touching its store', async () => {
    const untouched = () => Promise.reject(new Error('the readiness route reads no character'));
    const store: CharacterStore = {
      kind: 'pglite',
      describe: 'test',
      findCharacter: untouched,
      listCharacters: untouched,
      upsertCharacter: untouched,
      close: () => Promise.resolve(),
    };
    const app = await buildCharactersServer({ store });
    try {
      const answer = await app.inject({ method: 'GET', url: READINESS_PATH });
      expect(answer.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
