import { loadCharactersConfig, productionSettingsOf } from '../config';
import { createLogger } from '../logger';
import { charactersApiKeys } from './api-keys';
import { buildCharactersServer, charactersGraphQLPath } from './server';
import { openCharacterStore } from './store';

/**
 * The characters service process: PostgreSQL when DATABASE_URL is set, else the embedded PGlite database
 * under CHARACTERS_DATA_DIR. SIGINT/SIGTERM stop accepting requests, finish those in flight, close the store.
 */
async function main() {
  // Its own keys (CHARACTERS_API_KEYS) and database; none of the payments settings.
  const config = loadCharactersConfig(process.env, productionSettingsOf.characters);
  const log = createLogger(config, 'characters');
  const apiKeys = charactersApiKeys(config);
  const store = await openCharacterStore(config);
  const app = await buildCharactersServer({
    store,
    logger: log,
    production: config.NODE_ENV === 'production',
    apiKeys,
  });
  app.addHook('onClose', () => store.close());

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'characters service stopping');
    app.close().then(
      () => log.info('characters service stopped'),
      (error: unknown) => {
        log.error({ err: error }, 'characters service did not stop cleanly');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const host = config.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1';
  await app.listen({ host, port: config.CHARACTERS_PORT });
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${config.CHARACTERS_PORT}${charactersGraphQLPath}`;
  log.info({ url, store: store.describe }, 'characters service listening');
  console.log(
    `Characters GraphQL service: ${url}${config.NODE_ENV === 'production' ? '' : ' (GraphiQL at /graphiql)'}`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
