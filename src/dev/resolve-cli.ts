import { resolveTemporalCli } from './temporal-cli';

// `npm run temporal:resolve`: finds (or builds, the first time) the Temporal CLI and prints where it is.
resolveTemporalCli()
  .then((cli) => console.log(`Temporal CLI (${cli.source}): ${cli.path}`))
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
