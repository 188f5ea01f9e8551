import { ok } from '@meridian/contracts';
import { latestPerKey } from '../../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../../deps.js';
import { dayOf } from '../../../domain/feeds/computations.js';
import { ETF_ALL } from '../../../domain/feeds/observation-keys.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { entityOf, feedAnswer, iso, noData, sourceOf } from '../feed-answer.js';
import { latestResolver } from './latest.js';

const ETF_METHOD =
  'Farside Investors daily US spot bitcoin ETF flow table (US$m converted to USD; outflows negative); a day is dated 00:00 UTC of the trading day.';

/** Fund flows of the newest day: every fund, or the one fund named by entity. */
const flowByEtf: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const entity = entityOf(query, hit);
  if (!entity.ok) return entity;
  const source = sourceOf(query, hit);
  if (!source.ok) return source;
  const all = await latestPerKey(deps.db, 'etf_net_flow', query.now);
  const newest = Math.max(...all.map((o) => o.ts.getTime()));
  const day = all.filter((o) => o.ts.getTime() === newest && o.key !== ETF_ALL);
  const funds = day.filter((o) => !entity.value || o.key === entity.value);
  if (funds.length === 0) return noData('crypto/etf_flows/flow_by_etf');
  const asOf = new Date(newest);
  return ok(
    await feedAnswer(deps, {
      data: {
        day: dayOf(asOf),
        unit: 'USD',
        flows: Object.fromEntries(funds.map((o) => [o.key, o.value])),
      },
      now: query.now,
      asOf,
      sources: funds.map((o) => ({ venue: 'farside', ts: iso(o.ts), symbol: o.key })),
      method: `${ETF_METHOD} Net flow of the newest day per fund.`,
      hit,
      replay: { source: 'farside', file: 'etf_flows' },
    }),
  );
};

const etfLatest = (metric: string, words: string) =>
  latestResolver({
    source: 'farside',
    file: 'etf_flows',
    metric,
    key: (e) => e ?? ETF_ALL,
    unit: 'USD',
    method: `${ETF_METHOD} ${words}`,
    object: ([o], entity) => ({ fund: entity ?? 'all funds', day: dayOf(o!.ts), value: o!.value }),
  });

/** crypto/etf_flows: Farside's daily US spot bitcoin ETF flow table. */
export const etfFlowResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/etf_flows/net_flow': etfLatest(
    'etf_net_flow',
    'Net flow of the newest day: the Total column for all funds, or the fund named by entity.',
  ),
  'crypto/etf_flows/cumulative_net_flow': etfLatest(
    'etf_cumulative_net_flow',
    "Cumulative net flow since each fund's launch: the table's closing Total row.",
  ),
  'crypto/etf_flows/flow_by_etf': flowByEtf,
};
