import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request exactly as it reached the wire: headers as Node parsed them, body as raw bytes. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type ProviderHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export const TOKEN_PATH = '/v1/oauth2/token';

/**
 * A bare HTTP server that records every request and answers with the test's handler. Unless the handler
 * claims it, the token endpoint hands out `token-1`, `token-2`, … valid for an hour.
 */
export async function startRecordingProvider(handler: ProviderHandler) {
  const requests: RecordedRequest[] = [];
  let tokensIssued = 0;
  let current = handler;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://provider.test');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      Promise.resolve(current(recorded, res))
        .then(() => {
          if (res.headersSent || res.writableEnded || res.destroyed) return;
          if (recorded.path === TOKEN_PATH) {
            tokensIssued += 1;
            respondJson(res, 200, {
              access_token: `token-${tokensIssued}`,
              token_type: 'Bearer',
              expires_in: 3600,
            });
          } else respondJson(res, 404, { name: 'RESOURCE_NOT_FOUND', message: 'no route in this test' });
        })
        .catch((error: unknown) => res.destroy(error instanceof Error ? error : undefined));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Requests other than token requests. */
    apiRequests: () => requests.filter((request) => request.path !== TOKEN_PATH),
    tokenRequests: () => requests.filter((request) => request.path === TOKEN_PATH),
    setHandler(next: ProviderHandler) {
      current = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type RecordingProvider = Awaited<ReturnType<typeof startRecordingProvider>>;

export function respondJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(text);
}

export function authorizationBody(overrides: Record<string, unknown> = {}) {
  return {
    id: '0VF52814937998046',
    status: 'CREATED',
    amount: { currency_code: 'USD', value: '10.99' },
    expiration_time: '2026-02-10T12:00:00Z',
    ...overrides,
  };
}
