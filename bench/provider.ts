import { startSandbox } from '../src/sandbox/server';
import type { SigningCertificate } from '../src/sandbox/paypal/certificate';

// The payments provider for `npm run bench:webhooks`, in its own process as a real provider would be, so its
// verify endpoint does not share the event loop of the API under measurement. Stopped with SIGTERM.
async function main() {
  const signingCertificate = JSON.parse(process.env.BENCH_SIGNING_CERTIFICATE ?? '') as SigningCertificate;
  const sandbox = await startSandbox({
    port: Number(process.env.BENCH_PROVIDER_PORT),
    logger: false,
    signingCertificate,
  });
  console.log(`provider ready on ${sandbox.url}`);
  process.once('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
