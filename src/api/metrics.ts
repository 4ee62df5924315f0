import { createServer, type Server } from 'node:http';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { Histogram, collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * Records the API's Prometheus metrics into `registry`: `api_request_duration_seconds{method,route,status_code}`
 * and the Node process metrics. They are served by {@link serveMetrics} on an internal port, not by the API.
 */
export function recordApiMetrics<Logger extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>,
  registry: Registry,
): void {
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'api_request_duration_seconds',
    help: 'HTTP requests of the API by route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    duration.observe(
      { method: request.method, route: route ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}

/**
 * GET /metrics of `registry` on its own listener (API_METRICS_PORT, as the worker's WORKER_METRICS_PORT):
 * Prometheus reaches it on the internal network; the public API port does not serve it.
 */
export async function serveMetrics(registry: Registry, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
