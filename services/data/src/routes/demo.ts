import { Router } from 'express';
import { findMetric, replaySourceOf, replayStatement, type ReplaySource } from '@meridian/contracts';
import { NO_PARAMETERS, envelope, parseQuery } from '@meridian/http-kit';
import type { DataDeps } from '../deps.js';
import { combinedConfidence, confidence } from '../domain/confidence.js';
import type { SourceRef } from '../domain/metric-resolver.js';
import { demoSnapshot } from '../flows/demo-snapshot.js';
import { referencePriceResolver } from '../flows/resolve/spot/reference-price.js';

export const DEMO_TTL_S = 60;
const DEMO_SPOT = ['BTC-USD'];

/** GET /v1/demo: the multi-category snapshot of data-api-interface 2.2, computed at most once a minute. */
export function demoRoutes(deps: DataDeps): Router {
  const router = Router();
  let cached: { body: unknown; until: number } | undefined;
  let pending: Promise<unknown> | undefined;
  router.get('/v1/demo', async (req, res) => {
    parseQuery(NO_PARAMETERS, req.query);
    const now = deps.now();
    if (!cached || cached.until <= now) {
      pending ??= buildDemo(deps, new Date(now)).finally(() => (pending = undefined));
      cached = { body: await pending, until: now + DEMO_TTL_S * 1000 };
    }
    res.setHeader('cache-control', `public, max-age=${Math.max(0, Math.ceil((cached.until - now) / 1000))}`);
    res.json(cached.body);
  });
  return router;
}

async function buildDemo(deps: DataDeps, now: Date) {
  const hit = findMetric('crypto', 'spot', 'reference_price')!;
  const spot = [];
  const sources: SourceRef[] = [];
  const venues = new Set<string>();
  const scores: number[] = [];
  let asOf = 0;
  for (const entity of DEMO_SPOT) {
    const r = await referencePriceResolver(
      deps,
      { category: 'crypto', product: 'spot', metric: 'reference_price', entity, series: false, now },
      hit,
    );
    if (!r.ok) continue;
    const d = r.value.data as { symbol: string; price: number; venues: { venue: string; price: number }[] };
    spot.push({ symbol: d.symbol, price: d.price, venues: d.venues });
    sources.push(...r.value.sources);
    scores.push(r.value.confidence);
    r.value.venues.forEach((v) => venues.add(v));
    asOf = Math.max(asOf, Date.parse(r.value.as_of));
  }
  const parts = await demoSnapshot(deps, now);
  for (const part of parts.sources) scores.push(partConfidence(part, now));
  sources.push(...parts.sources);
  parts.sources.forEach((s) => venues.add(s.venue));
  const times = sources.map((s) => Date.parse(s.ts)).filter(Number.isFinite);
  const replay = deps.config.INGEST_MODE === 'replay' ? replayStatement(deps.catalog) : undefined;
  const oldest = times.length ? Math.min(...times) : now.getTime();
  return envelope(
    { crypto: { spot }, options: parts.options, sports: parts.sports },
    {
      as_of: now.toISOString(),
      venues: [...venues],
      staleness_ms: Math.max(0, now.getTime() - oldest),
      confidence: combinedConfidence(scores, (spot.length > 0 ? 0 : 1) + (parts.options ? 0 : 1)),
      cache_ttl_s: DEMO_TTL_S,
      ...(replay ? { replay: { live: false, kind: demoReplayKind(), statement: replay } } : {}),
    },
    {
      sources,
      method: `Snapshot of several categories, computed at most once every 60 s: the crypto spot reference prices (as /v1/data/crypto/spot/reference_price), the nearest-expiry options contracts of the stored chain, and the sports events of the stored scoreboards.${replay ? ` ${replay}` : ''}`,
    },
  );
}

/** The demo's parts as replay plays them: spot and the chain recorded, the scoreboards samples. */
function demoReplayKind(): ReplaySource {
  const kinds = new Set(DEMO_PARTS.map((path) => replaySourceOf(...path)));
  return kinds.size === 1 ? [...kinds][0]! : 'mixed';
}

const DEMO_PARTS: [string, string, string][] = [
  ['crypto', 'spot', 'reference_price'],
  ['crypto', 'options', 'chain'],
  ['sports', 'basketball', 'live_score'],
];

/** The max age of the demo's feed parts: the options chain's and the scoreboards' (catalogue). */
const PART_MAX_AGE: Record<string, number> = {
  deribit: findMetric('crypto', 'options', 'chain')!.metric.max_age_ms!,
  espn: findMetric('sports', 'basketball', 'live_score')!.metric.max_age_ms!,
};

/** One part's score: one source, its own age against its metric's max age. */
function partConfidence(part: SourceRef, now: Date): number {
  const staleness = Math.max(0, now.getTime() - Date.parse(part.ts));
  return confidence({
    venues: 1,
    dispersion: 0,
    staleness_ms: staleness,
    max_age_ms: PART_MAX_AGE[part.venue] ?? 1,
  });
}
