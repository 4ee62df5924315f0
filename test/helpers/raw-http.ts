import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Sends one HTTP/1.1 request with exactly the headers given (plus Host and Connection: close) and nothing
 * else: no Content-Length or Content-Type is added, as `curl -X POST` without data sends none. Clients such
 * as fetch and axios always add some, which hides how a server treats their absence.
 */
export function rawRequest(
  url: string,
  request: { method: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const { hostname, port, pathname, search } = new URL(url);
  const head = [
    `${request.method} ${pathname}${search} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Connection: close',
    ...Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      // Written, not ended: a half-closed socket makes Node abort the request in flight.
      socket.write(`${head.join('\r\n')}\r\n\r\n${request.body ?? ''}`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

function parseResponse(raw: Buffer): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`not an HTTP response: ${JSON.stringify(raw.subarray(0, 200).toString())}`);
  const [statusLine = '', ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status, headers, text: body.toString('utf8') };
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    rest = rest.subarray(lineEnd + 2 + size + 2);
  }
}
