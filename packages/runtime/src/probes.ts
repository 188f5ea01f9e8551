import { Router } from 'express';
import type { Metrics } from '@meridian/observability';

/** /health (the process answers), /ready (its database and bus answer) and /metrics. */
export function probeRouter(service: string, metrics: Metrics, ready: () => Promise<void>): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok', service });
  });
  router.get('/ready', async (_req, res) => {
    try {
      await ready();
      res.json({ status: 'ready', service });
    } catch {
      res.status(503).json({ status: 'not_ready', service });
    }
  });
  router.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
