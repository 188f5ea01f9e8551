import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { catalogFor, allMetrics, findMetric, type CatalogHit } from '@meridian/contracts';
import type { Deps } from '../../src/app.js';
import { feedResolvers } from '../../src/flows/resolve/index.js';
import type { MetricAnswer } from '../../src/domain/metric-resolver.js';
import { ingest } from '../../src/flows/ingest.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { playRecordings, testDeps } from '../support/app.js';

/**
 * Every feed resolver takes its age limits from the catalogue (MetricEntry.cadence_ms, max_age_ms),
 * never from a constant of its own: read at a pinned "now", each answer scores the age it reports.
 */
describe('feed ages from the catalogue', () => {
  let db: MigratedDatabase;
  let deps: Deps;
  const loadedAt = new Date();

  beforeAll(async () => {
    db = await migratedDatabase('data_feeds_cadence');
    // As main.ts plays under replay: the futures are the market replay's perpetuals, not a recording.
    deps = testDeps(db, {}, () => loadedAt.getTime());
    await playRecordings(deps);
  });
  afterAll(() => db.drop());

  const pathOf = (h: CatalogHit) => `${h.product.category}/${h.product.product}/${h.metric.metric}`;

  async function answer(hit: CatalogHit, now: Date, entity?: string): Promise<MetricAnswer> {
    const path = pathOf(hit);
    const result = await feedResolvers[path]!(
      deps,
      {
        category: hit.product.category,
        product: hit.product.product,
        metric: hit.metric.metric,
        entity,
        series: false,
        now,
      },
      hit,
    );
    expect([path, result.ok]).toEqual([path, true]);
    return (result as { ok: true; value: MetricAnswer }).value;
  }

  it('scores a value one cadence old against the max age of its metric, for every feed metric', async () => {
    // basis is left out: its as_of is the older of the perp marks and the spot price, which this file does not store.
    const feeds = allMetrics().filter(
      (h) => h.metric.status === 'live' && feedResolvers[pathOf(h)] && pathOf(h) !== 'crypto/futures/basis',
    );
    expect(feeds.length).toBeGreaterThanOrEqual(45);
    for (const hit of feeds) {
      const path = pathOf(hit);
      const { cadence_ms: cadence, max_age_ms: maxAge } = hit.metric;
      const latest = await answer(hit, loadedAt);
      const now = new Date(Date.parse(latest.as_of) + cadence!);
      const aged = await answer(hit, now);
      const expected =
        Math.round((1 - 0.5 ** aged.venues.length) * Math.exp(-cadence! / maxAge!) * 1000) / 1000;
      expect([path, aged.as_of, aged.staleness_ms, aged.confidence]).toEqual([
        path,
        latest.as_of,
        cadence,
        expected,
      ]);
    }
  });

  it('takes into the options chain only the marks within the max age of the newest (three polls)', async () => {
    const hit = findMetric('crypto', 'options', 'chain')!;
    const before = await answer(hit, loadedAt);
    const newest = Date.parse(before.as_of);
    const maxAge = hit.metric.max_age_ms!;
    expect(maxAge).toBe(180_000);
    const expiry = new Date(loadedAt.getTime() + 7 * 86_400_000).toISOString();
    const mark = (instrument: string, ageMs: number) => ({
      instrument,
      ts: new Date(newest - ageMs).toISOString(),
      underlying: 'BTC',
      expiry,
      strike: 10_000,
      option_type: 'call' as const,
      underlying_px: 9_000,
      mark_price_usd: 100,
      mark_iv: 0.8,
      delta: 0.3,
      gamma: null,
      vega: null,
      theta: null,
      open_interest: 1,
    });
    await ingest(
      db.db,
      {
        kind: 'option_marks',
        source: 'deribit',
        rows: [mark('BTC-TEST-INSIDE', maxAge - 1000), mark('BTC-TEST-OUTSIDE', maxAge + 1000)],
      },
      catalogFor('replay'),
    );
    const after = await answer(hit, loadedAt);
    const instruments = (after.data as { options: { instrument: string }[] }).options.map(
      (o) => o.instrument,
    );
    expect(instruments).toContain('BTC-TEST-INSIDE');
    expect(instruments).not.toContain('BTC-TEST-OUTSIDE');
    expect(after.method).toMatch(/within 180 s \(three polls\) of the newest/);
  });
});
