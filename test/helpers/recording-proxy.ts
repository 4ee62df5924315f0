import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request passed on to the provider, and the provider's answer, as bytes on the wire. */
export interface Exchange {
  method: string;
  path: string;
  requestHeaders: IncomingHttpHeaders;
  requestBody: Buffer;
  status: number;
  responseBody: Buffer;
}

/** Another answer than the provider's: a status and a body (empty for none). */
export type Rewrite = (exchange: Exchange) => { status: number; body: string } | undefined;

/**
 * An HTTP proxy in front of `target` that records every exchange, so a test sees what really travelled.
 * `rewrite` may answer differently from the provider (the recorded exchange keeps the provider's answer).
 */
export async function startRecordingProxy(target: string, rewrite?: Rewrite) {
  const exchanges: Exchange[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const requestBody = Buffer.concat(chunks);
      const url = new URL(incoming.url ?? '/', target);
      const forwarded = httpRequest(
        url,
        { method: incoming.method, headers: { ...incoming.headers, host: url.host } },
        (answer) => {
          const answered: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answered.push(chunk));
          answer.on('end', () => {
            const exchange: Exchange = {
              method: incoming.method ?? '',
              path: url.pathname,
              requestHeaders: incoming.headers,
              requestBody,
              status: answer.statusCode ?? 0,
              responseBody: Buffer.concat(answered),
            };
            exchanges.push(exchange);
            const rewritten = rewrite?.(exchange);
            if (!rewritten) {
              outgoing.writeHead(exchange.status || 502, answer.headers);
              outgoing.end(exchange.responseBody);
            } else {
              outgoing.writeHead(
                rewritten.status,
                rewritten.body ? { 'content-type': 'application/json' } : {},
              );
              outgoing.end(rewritten.body);
            }
          });
        },
      );
      forwarded.on('error', () => outgoing.destroy());
      forwarded.end(requestBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
