import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { allMetrics, type CatalogHit } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger } from '@meridian/observability';
import { startMarketReplay } from '../../src/jobs/spot/market-replay.js';
import { observationHistory } from '../../src/db/repositories/feeds-observations.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { playRecordings, testApp, testDeps } from '../support/app.js';

const pathOf = (h: CatalogHit) => `${h.product.category}/${h.product.product}/${h.metric.metric}`;
const LIVE = allMetrics().filter((h) => h.metric.status === 'live');
/** Where two answers part, with some text around it. */
function firstDifference(a: string, b: string) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return { cached: a.slice(Math.max(0, i - 120), i + 120), fresh: b.slice(Math.max(0, i - 120), i + 120) };
}

/** Every live metric's latest answer, every series' first page, and the OHLCV roll-ups and pages shaped (second pages below). */
const QUERIES = [
  ...LIVE.map((h) => `/v1/data/${pathOf(h)}`),
  ...LIVE.filter((h) => h.metric.series && h.metric.value_shape !== 'series').map(
    (h) => `/v1/data/${pathOf(h)}?series=true`,
  ),
  ...['1s', '5m', '1h', '4h', '1d'].map((i) => `/v1/data/crypto/spot/ohlcv?interval=${i}`),
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=kraken&interval=1h',
  '/v1/data/crypto/spot/ohlcv?fields=ts,close&format=table',
  // The stored combined minutes rolled up; a second shape of the default page's kept answer.
  '/v1/data/crypto/spot/ohlcv?interval=15m',
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m&format=table',
  '/v1/data/crypto/spot/trades?source=binanceus&fields=ts,price',
];

/** Series whose second page (a later page, kept apart) is compared too. */
const SECOND_PAGES = [
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m',
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=5m',
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1s',
];

/** Every query three times at each instant, on a machine shared with other work. */
const LONG = 300_000;
const log = createLogger('answer-cache-test', { level: 'silent' });

/**
 * Served from memory, every answer is the one its resolver computes at the same instant on the same
 * data: the same process with both caches off (the answers' and the reference price's) reads the same database at the same injected clock. Read at
 * a load instant, within its minute, at the minute boundary before and after the replay plays the
 * minute that closed, and after it; at an ordinary minute and at the replay loop's seam (the recording
 * wraps from 2023-03-14 23:59 to 2023-03-08 00:00 at 2026-12-17 00:00).
 */
describe.each([
  { name: 'a minute boundary', boundary: '2026-12-14T12:07:00Z' },
  { name: "the replay loop's seam", boundary: '2026-12-17T00:00:00Z' },
])('cached answers equal recomputed ones at $name', ({ boundary }) => {
  const at = Date.parse(boundary);
  let clock = at - 45_000;
  let db: MigratedDatabase;
  let deps: ReturnType<typeof testDeps>;
  let cached: RequestListener;
  let recomputed: RequestListener;

  beforeAll(async () => {
    db = await migratedDatabase(`data_answer_cache_${at / 1000}`);
    deps = testDeps(db, { INGEST_MODE: 'replay' }, () => clock);
    cached = testApp(deps);
    recomputed = testApp(
      testDeps(
        db,
        { INGEST_MODE: 'replay', DATA_ANSWER_CACHE_MS: '0', DATA_PRICE_CACHE_MS: '0' },
        () => clock,
      ),
    );
    await playRecordings(deps);
  }, LONG);
  afterAll(() => db.drop());

  /** A fresh caller assertion for every request: one lives 60 s, the test runs longer. */
  const get = async (app: RequestListener, path: string) =>
    request(app)
      .get(path)
      .set(await callerHeaders({ plan: 'ultra', auth: 'api_key', account_id: 'acct_c', key_id: 'key_c' }));

  /** The second page of each series in SECOND_PAGES, by the cursor its first page gives. */
  async function secondPages(): Promise<string[]> {
    const pages: string[] = [];
    for (const path of SECOND_PAGES) {
      const cursor = (await get(recomputed, path)).body.meta?.next_cursor;
      expect({ path, cursor }).toEqual({ path, cursor: expect.any(String) });
      pages.push(`${path}&cursor=${encodeURIComponent(cursor)}`);
    }
    return pages;
  }

  /** Each query read twice through the cache (the second from memory) and once recomputed: what differs. */
  async function differences(): Promise<Record<string, unknown>> {
    const wrong: Record<string, unknown> = {};
    for (const path of [...QUERIES, ...(await secondPages())]) {
      await get(cached, path);
      const kept = await get(cached, path);
      const fresh = await get(recomputed, path);
      // A refusal of the caller or a failure would compare equal and prove nothing.
      if (
        kept.status === 401 ||
        kept.status >= 500 ||
        kept.status !== fresh.status ||
        kept.text !== fresh.text
      )
        wrong[path] = { status: [kept.status, fresh.status], ...firstDifference(kept.text, fresh.text) };
    }
    return wrong;
  }

  /** What the replay does at every tick: the bars (and prints, perps) of the minutes closed since. */
  async function replayTick(): Promise<void> {
    const replay = startMarketReplay(deps.ingestor, log, () => clock);
    await replay.settled();
    await replay.stop();
  }

  it(
    'at the load instant and later in its minute',
    async () => {
      expect(await differences()).toEqual({});
      clock = at - 30_500;
      expect(await differences()).toEqual({});
    },
    LONG,
  );

  it(
    'on each side of the minute boundary, before and after the replay plays the minute that closed',
    async () => {
      clock = at - 1;
      expect(await differences()).toEqual({});
      clock = at;
      expect(await differences()).toEqual({});
      const before = await get(cached, '/v1/data/crypto/spot/ohlcv');
      await replayTick();
      const after = await get(cached, '/v1/data/crypto/spot/ohlcv');
      expect([after.status, after.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
      // The played minute is served at once, at the same instant: the ingest dropped what was kept.
      expect(after.body.meta.as_of).not.toEqual(before.body.meta.as_of);
      expect(await differences()).toEqual({});
      clock = at + 1;
      expect(await differences()).toEqual({});
      clock = at + 20_000;
      expect(await differences()).toEqual({});
    },
    LONG,
  );

  it(
    'serves a feed changed by an ingest at the same instant, not the answer kept before it',
    async () => {
      const path = '/v1/data/weather/observations/temperature?entity=london';
      const before = await get(cached, path);
      const [newest] = await observationHistory(deps.db, 'temperature', 'london', new Date(clock), 1);
      const ingested = await deps.ingestor.ingest({
        kind: 'observations',
        source: 'open_meteo',
        rows: [
          {
            key: 'london',
            metric: 'temperature',
            ts: newest!.ts.toISOString(),
            value: 99.5,
            payload: newest!.payload,
          },
        ],
      });
      expect(ingested.ok && ingested.value.updated).toBe(1);
      const after = await get(cached, path);
      expect([before.status, after.status, after.text.slice(0, 300)]).toEqual([200, 200, expect.any(String)]);
      expect([before.body.data, after.body.data]).toEqual([newest!.value, 99.5]);
      expect(await differences()).toEqual({});
    },
    LONG,
  );
});
