import { Router } from 'express';
import { analysisDomainBodySchema, analysisDomainQuerySchema } from '@meridian/contracts';
import { envelope, parseInput, parseQuery, sessionAccountOf } from '@meridian/http-kit';
import type { AnalysisDeps } from '../deps.js';
import {
  addDomain,
  checkOwnership,
  dnsProviderOf,
  domainView,
  listDomains,
  ownDomain,
} from '../flows/domains.js';
import { METHOD, valueOf } from './answer.js';

/** GET, POST /v1/analysis/domains, GET /v1/analysis/verify and /v1/analysis/dns-provider (portal 4.3). */
export function domainRoutes(deps: AnalysisDeps): Router {
  const router = Router();
  router.get('/v1/analysis/domains', async (req, res) => {
    const accountId = sessionAccountOf(req);
    // `pnpm start`'s demo site, which a person can add and audit offline; null in every deployment.
    const meta = { demo_domain: deps.demoSite?.host ?? null };
    res.json(envelope((await listDomains(deps, accountId)).map(domainView), meta, { method: METHOD }));
  });
  router.post('/v1/analysis/domains', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const body = parseInput(analysisDomainBodySchema, req.body);
    const { row, created } = valueOf(await addDomain(deps, accountId, body.domain));
    res.status(created ? 201 : 200).json(envelope(domainView(row), {}, { method: METHOD }));
  });
  router.get('/v1/analysis/verify', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const query = parseQuery(analysisDomainQuerySchema, req.query);
    const domain = valueOf(await ownDomain(deps, accountId, query.domain));
    const { row, found } = valueOf(await checkOwnership(deps, domain));
    res.json(
      envelope(
        { ...domainView(row), found },
        {},
        { method: `TXT ${domainView(row).verification.name} looked up through the configured resolvers.` },
      ),
    );
  });
  router.get('/v1/analysis/dns-provider', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const query = parseQuery(analysisDomainQuerySchema, req.query);
    const domain = valueOf(await ownDomain(deps, accountId, query.domain));
    res.json(
      envelope(
        valueOf(await dnsProviderOf(deps, domain)),
        {},
        { method: 'NS records matched against a table of DNS hosts.' },
      ),
    );
  });
  return router;
}
