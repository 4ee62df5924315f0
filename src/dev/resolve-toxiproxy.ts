import { resolveToxiproxy } from './toxiproxy';

// `npm run toxiproxy:resolve`: finds (or builds, the first time) Toxiproxy and prints where it is.
resolveToxiproxy()
  .then((path) => console.log(`toxiproxy: ${path}`))
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
