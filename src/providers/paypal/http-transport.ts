import type { Readable } from 'node:stream';
import axios, { type AxiosInstance, type AxiosRequestConfig } from 'axios';
import { PaymentsApiError } from './errors';

export interface PaymentsLogger {
  debug(fields: object, message: string): void;
}

/** A provider answer with its body as raw text: the client, not axios, decides how to read it. */
export interface ProviderResponse {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

export interface ProviderHttp {
  axios: AxiosInstance;
  timeoutMs: number;
  logger: PaymentsLogger | undefined;
}

export function createProviderHttp(
  baseUrl: string,
  timeoutMs: number,
  logger?: PaymentsLogger,
): ProviderHttp {
  const instance = axios.create({
    baseURL: baseUrl,
    timeout: timeoutMs,
    headers: { Accept: 'application/json' },
    // Every status is an answer to classify, not an exception; redirects are not part of the API.
    validateStatus: () => true,
    maxRedirects: 0,
    transitional: { clarifyTimeoutError: true },
  });
  return { axios: instance, timeoutMs, logger };
}

/**
 * Sends one request. Transport failures become a `timeout` or `network` PaymentsApiError built from the
 * error code alone: axios errors carry the request config, headers and credentials included, so they never
 * leave this function. With `readBody: 'on-error'` a 2xx body is discarded unread.
 */
export async function sendToProvider(
  http: ProviderHttp,
  operation: string,
  request: AxiosRequestConfig,
  readBody: 'always' | 'on-error' = 'always',
): Promise<ProviderResponse> {
  const started = Date.now();
  try {
    const response =
      readBody === 'always'
        ? await http.axios.request<string>({
            ...request,
            responseType: 'text',
            transformResponse: (data: string) => data,
          })
        : await http.axios.request<Readable>({ ...request, responseType: 'stream' });
    const ok = response.status >= 200 && response.status < 300;
    let body: string;
    if (typeof response.data === 'string') body = response.data;
    else if (ok) {
      response.data.destroy();
      body = '';
    } else body = await readStream(response.data, http.timeoutMs);
    http.logger?.debug(
      {
        operation,
        method: request.method,
        path: request.url,
        status: response.status,
        durationMs: Date.now() - started,
      },
      'payments provider answered',
    );
    return { status: response.status, headers: { ...response.headers }, body };
  } catch (error) {
    throw transportError(operation, error, http.timeoutMs);
  }
}

function transportError(operation: string, error: unknown, timeoutMs: number): PaymentsApiError {
  if (error instanceof PaymentsApiError) return error;
  const code = axios.isAxiosError(error) ? error.code : undefined;
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED') {
    return new PaymentsApiError({
      kind: 'timeout',
      message: `${operation}: no answer within ${timeoutMs} ms`,
    });
  }
  if (code === 'ERR_INVALID_URL') {
    return new PaymentsApiError({ kind: 'invalid-request', message: `${operation}: invalid provider URL` });
  }
  const reason = code ?? (error instanceof Error ? error.message : String(error));
  return new PaymentsApiError({
    kind: 'network',
    message: `${operation}: connection to the provider failed (${reason})`,
  });
}

async function readStream(stream: Readable, timeoutMs: number): Promise<string> {
  const timer = setTimeout(() => stream.destroy(), timeoutMs);
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream)
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  } catch {
    // A truncated error body still leaves the status to classify.
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
