import { Router } from 'express';
import { autoRescanBodySchema } from '@meridian/contracts';
import { envelope, parseInput, sessionAccountOf } from '@meridian/http-kit';
import type { AnalysisDeps } from '../deps.js';
import { readRescan, setRescan } from '../flows/rescan.js';
import { METHOD, valueOf } from './answer.js';

/** POST /v1/analysis/auto-rescan (portal 4.3): turns the weekly re-scan on or off; without `enabled` it toggles. */
export function rescanRoutes(deps: AnalysisDeps): Router {
  const router = Router();
  router.post('/v1/analysis/auto-rescan', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const body = parseInput(autoRescanBodySchema, req.body);
    const current = valueOf(await readRescan(deps, accountId, body.domain));
    const enabled = body.enabled ?? !current?.enabled;
    const tier = body.tier ?? (current?.tier as typeof body.tier) ?? 'audit_base';
    res.json(
      envelope(
        valueOf(await setRescan(deps, accountId, { domain: body.domain, enabled, tier })),
        {},
        { method: METHOD },
      ),
    );
  });
  return router;
}
