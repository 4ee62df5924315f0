import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/**
 * HTTPS in front of API 1's codec server, for the Web UI: the UI forwards an operator's access token only to
 * an https codec endpoint (it refuses to send it over plain http). Production terminates TLS at its load
 * balancer; the cluster uses a self-signed certificate for localhost made at start, written to `dir` so that
 * a browser can be told to trust it.
 */
export interface CodecTls {
  /** The codec endpoint for the UI: https://127.0.0.1:<port>/codec. */
  endpoint: string;
  certFile: string;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

export async function startCodecTls(apiUrl: string, dir: string): Promise<CodecTls> {
  const certificate = await generate([{ name: 'commonName', value: 'localhost' }], {
    algorithm: 'sha256',
    keyType: 'ec',
    notBeforeDate: new Date(Date.now() - 60_000),
    notAfterDate: new Date(Date.now() + 7 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true });
  const certFile = join(dir, 'codec-tls.pem');
  writeFileSync(certFile, certificate.cert);

  const target = new URL(apiUrl);
  const server: Server = createServer(
    { cert: certificate.cert, key: certificate.private },
    (incoming, outgoing) => {
      // Only the codec routes: the rest of the API stays where it is.
      if (!incoming.url?.startsWith('/codec/')) {
        outgoing.writeHead(404).end();
        return;
      }
      const forwarded = httpRequest(
        {
          hostname: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: { ...incoming.headers, host: target.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', () => outgoing.headersSent || outgoing.writeHead(502).end());
      incoming.pipe(forwarded);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `https://127.0.0.1:${port}/codec`,
    certFile,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
