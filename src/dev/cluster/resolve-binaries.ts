import { resolveClusterBinaries } from './binaries';

// `npm run cluster:binaries`: finds (or builds, the first time) the cluster's Go binaries and prints where.
resolveClusterBinaries()
  .then((binaries) => {
    console.log(`Temporal server:     ${binaries.server}`);
    console.log(`Temporal sql tool:   ${binaries.sql}`);
    console.log(`Temporal UI server:  ${binaries.uiServer}`);
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
