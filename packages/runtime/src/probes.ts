import type { RequestListener } from 'node:http';
import { Router } from 'express';
import type { Metrics } from '@meridian/observability';

/** What a service adds to its `/ready` answer (e.g. the state of each live upstream); never a secret. */
export type ReadyDetails = Record<string, unknown>;

/**
 * `/health` (the process answers), `/ready` (its database and bus answer) and, unless `serveMetrics` is false (the public edge serves its metrics on a
 * listener of their own: `metricsListener`), `/metrics`.
 */
export function probeRouter(
  service: string,
  metrics: Metrics,
  ready: () => Promise<ReadyDetails | void>,
  { serveMetrics = true }: { serveMetrics?: boolean } = {},
): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok', service });
  });
  router.get('/ready', async (_req, res) => {
    try {
      const details = await ready();
      res.json({ status: 'ready', service, ...(details ? { details } : {}) });
    } catch {
      res.status(503).json({ status: 'not_ready', service });
    }
  });
  if (serveMetrics)
    router.get('/metrics', async (_req, res) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  return router;
}

/** A listener that answers `GET /metrics` and nothing else, for a port the public cannot reach. */
export function metricsListener(metrics: Metrics): RequestListener {
  return (req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  };
}
