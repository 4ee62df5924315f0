import { resolveStripeMock } from './stripe-mock';

// `npm run stripe-mock:resolve`: finds (or builds, the first time) stripe-mock and prints where it is.
resolveStripeMock()
  .then((path) => console.log(`stripe-mock: ${path}`))
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
