import { mkdtempSync, readFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { writeClusterCertificates } from '../../src/dev/cluster/certificates';
import { temporalTarget } from '../../src/temporal-env';

// No Temporal server here checks API keys, so a test double stands at the gRPC edge: a TLS HTTP/2 server that
// records each call's headers and answers every call UNAUTHENTICATED unless it carries the expected key.
// What is checked is our side: TEMPORAL_API_KEY turns TLS on and sends `authorization: Bearer <key>`.

const API_KEY = 'test-api-key-1';
let server: Http2SecureServer;
let address: string;
let caFile: string;
const calls: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'temporal-api-key-'));
  const certificates = await writeClusterCertificates(dir, []);
  caFile = certificates.caFile;
  server = createSecureServer({
    cert: readFileSync(certificates.frontend.certFile),
    key: readFileSync(certificates.frontend.keyFile),
    ALPNProtocols: ['h2'],
  });
  server.on('stream', (stream, headers) => {
    calls.push(headers);
    const authorized = headers.authorization === `Bearer ${API_KEY}`;
    // gRPC over HTTP/2: status 200, the outcome in trailers (here, as trailers-only headers).
    stream.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': authorized ? '12' : '16',
        'grpc-message': authorized ? 'test double' : 'bad api key',
      },
      { endStream: true },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** One GetSystemInfo through a connection made from `env`: the headers the double saw, the gRPC code back. */
async function callWith(
  env: Record<string, string>,
): Promise<{ headers?: IncomingHttpHeaders; code?: number }> {
  calls.length = 0;
  const target = temporalTarget(
    { TEMPORAL_DEV_PORT: 7233 },
    {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: caFile,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
      ...env,
    },
  );
  const connection = Connection.lazy({ ...target.connection, connectTimeout: '5 seconds' });
  try {
    const code = await connection.workflowService.getSystemInfo({}).then(
      () => 0,
      (error: { code?: number }) => error.code,
    );
    return { headers: calls[0], code };
  } finally {
    await connection.close();
  }
}

it('sends TEMPORAL_API_KEY as a bearer token over TLS', async () => {
  const target = temporalTarget(
    { TEMPORAL_DEV_PORT: 7233 },
    { TEMPORAL_ADDRESS: address, TEMPORAL_API_KEY: API_KEY },
  );
  expect(target.connection).toMatchObject({ apiKey: API_KEY, tls: true });

  const { headers, code } = await callWith({ TEMPORAL_API_KEY: API_KEY });
  expect(headers?.[':path']).toBe('/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo');
  expect(headers?.authorization).toBe(`Bearer ${API_KEY}`);
  expect(code).toBe(12); // past the key check: the double implements nothing
});

it('is refused (UNAUTHENTICATED) with another key or none', async () => {
  const other = await callWith({ TEMPORAL_API_KEY: 'another-key' });
  expect(other.headers?.authorization).toBe('Bearer another-key');
  expect(other.code).toBe(16);
  const none = await callWith({ TEMPORAL_TLS: 'true' });
  expect(none.headers?.[':path']).toBe('/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo');
  expect(none.headers?.authorization).toBeUndefined();
  expect(none.code).toBe(16);
});
