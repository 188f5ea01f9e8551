import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { catalogFor, type IngestBatch } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger } from '@meridian/observability';
import { marketBars, marketsOf } from '../../src/db/repositories/candles.js';
import { combinedRollups } from '../../src/db/repositories/combined-rollups.js';
import { combineIntoBuckets, combineMarkets, RATE_LOOKBACK_MS } from '../../src/domain/spot/combine.js';
import { ingest as ingestIn } from '../../src/flows/ingest.js';
import { startMarketReplay } from '../../src/jobs/spot/market-replay.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';

/**
 * The combined 1m bars that ingestion keeps (`combined_rollups` rows of bucket 1m) equal the combination
 * of every market's stored 1m rows computed in one go, however the rows arrived: played by the replay
 * across its loop's seam, late, corrected. And a combined 1m answer's pages, which read them, walk back
 * through every bar once.
 */

const MINUTE = 60_000;
const LONG = 300_000;
const ingest = (db: Parameters<typeof ingestIn>[0], batch: IngestBatch) =>
  ingestIn(db, batch, catalogFor('replay'));

/** What is stored for BTC in [from, to), and the combination of the venue rows read whole. */
async function storedAndRecomputed(db: MigratedDatabase['db'], from: number, to: number) {
  const series = await marketBars(
    db,
    'candles_1m',
    await marketsOf(db, 'BTC'),
    new Date(from - RATE_LOOKBACK_MS),
    new Date(to),
  );
  return {
    stored: await combinedRollups(db, '1m', 'BTC', new Date(from), new Date(to)),
    buckets: combineIntoBuckets(series, from, MINUTE),
    bars: combineMarkets(series, from).bars,
  };
}

function expectSame({ stored, buckets, bars }: Awaited<ReturnType<typeof storedAndRecomputed>>) {
  expect(stored.length).toBeGreaterThan(0);
  expect(stored).toEqual(buckets);
  // The bars a combined 1m answer served before they were kept: combined per request.
  expect(stored.flatMap((b) => (b.bar ? [b.bar] : []))).toEqual(bars);
}

describe("combined 1m bars kept by ingestion, across the replay loop's seam", () => {
  // The recording wraps from 2023-03-14 23:59 to 2023-03-08 00:00 at this instant.
  const seam = Date.parse('2026-12-17T00:00:00Z');
  let clock = seam - 20 * MINUTE;
  let db: MigratedDatabase;

  beforeAll(async () => {
    db = await migratedDatabase('data_combined_minutes_seam');
  });
  afterAll(() => db.drop());

  it(
    'equal the combination of the venue rows before and after the replay plays through the seam',
    async () => {
      const deps = testDeps(db, { INGEST_MODE: 'replay' }, () => clock);
      const tick = async () => {
        const replay = startMarketReplay(
          deps.ingestor,
          createLogger('seam', { level: 'silent' }),
          () => clock,
        );
        await replay.settled();
        await replay.stop();
      };
      await tick();
      expectSame(await storedAndRecomputed(db.db, seam - 6 * 60 * MINUTE, seam));
      clock = seam + 12 * MINUTE;
      await tick();
      expectSame(await storedAndRecomputed(db.db, seam - 6 * 60 * MINUTE, seam + 12 * MINUTE));
      const played = await combinedRollups(db.db, '1m', 'BTC', new Date(seam), new Date(seam + 12 * MINUTE));
      expect(played.length).toBeGreaterThan(0);
    },
    LONG,
  );
});

describe('combined 1m bars kept by ingestion, rows late and corrected', () => {
  const t0 = Date.UTC(2023, 4, 6, 10, 0);
  const at = (m: number) => t0 + m * MINUTE;
  const usd = (m: number) => 29_000 + ((m * 37) % 101);
  const peg = (m: number) => 1 - (m % 7) / 1000;
  /** Minutes ingested: more than two pages of 500 bars. */
  const SPAN = 1_100;
  let db: MigratedDatabase;

  const batch = (
    source: string,
    symbol: string,
    minutes: number[],
    px: (m: number) => number,
  ): IngestBatch => ({
    kind: 'candles',
    source,
    symbol,
    interval: '1m',
    rows: minutes.map((m) => ({
      ts: new Date(at(m)).toISOString(),
      open: px(m),
      high: px(m) + 3,
      low: px(m) - 2,
      close: px(m) + 1,
      volume: 1 + (m % 3),
      trade_count: 5 + m,
    })),
  });
  const range = (from: number, to: number, skip: (m: number) => boolean = () => false) =>
    Array.from({ length: to - from }, (_, i) => from + i).filter((m) => !skip(m));

  beforeAll(async () => {
    db = await migratedDatabase('data_combined_minutes_late');
    // The USD book misses 30 minutes (the other books' bars there lose their rate after 5).
    await ingest(
      db.db,
      batch(
        'v1',
        'BTC-USD',
        range(0, SPAN, (m) => m >= 40 && m < 70),
        usd,
      ),
    );
    await ingest(
      db.db,
      batch('v1', 'BTC-USDC', range(0, SPAN), (m) => usd(m) / peg(m)),
    );
    await ingest(
      db.db,
      batch(
        'v2',
        'BTC-USDT',
        range(0, SPAN, (m) => m % 11 === 0),
        (m) => usd(m) + 4,
      ),
    );
  }, LONG);
  afterAll(() => db.drop());

  it('equal the combination of the venue rows as ingested', async () => {
    const both = await storedAndRecomputed(db.db, at(0), at(SPAN));
    expectSame(both);
    // Past the last USD rate's reach (5 min) the other books' minutes are kept for their tallies, without a bar.
    expect(both.stored.filter((b) => b.bar === undefined).map((b) => (b.ts - t0) / MINUTE)).toEqual(
      range(45, 70),
    );
    expect(both.stored.some((b) => b.members.some((m) => m.left_out > 0))).toBe(true);
  });

  it('equal it again after a late USD row reprices the minutes after it, and after a corrected row', async () => {
    const before = await combinedRollups(db.db, '1m', 'BTC', new Date(at(50)), new Date(at(60)));
    await ingest(db.db, batch('v1', 'BTC-USD', [52], usd));
    expectSame(await storedAndRecomputed(db.db, at(0), at(SPAN)));
    const after = await combinedRollups(db.db, '1m', 'BTC', new Date(at(50)), new Date(at(60)));
    expect(after).not.toEqual(before);
    await ingest(
      db.db,
      batch('v2', 'BTC-USDT', [100], (m) => usd(m) * 1.5),
    );
    expectSame(await storedAndRecomputed(db.db, at(0), at(SPAN)));
  });

  it('a combined 1m answer walks back through every kept bar once, page by page', async () => {
    const app = testApp(testDeps(db, {}, () => at(SPAN + 1)));
    const headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_m',
      key_id: 'key_m',
    });
    const pages: string[][] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const res = await request(app)
        .get(
          `/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m&fields=ts${cursor ? `&cursor=${cursor}` : ''}`,
        )
        .set(headers)
        .expect(200);
      pages.push((res.body.data as { ts: string }[]).map((r) => r.ts));
      cursor = res.body.meta.next_cursor as string | null;
      expect(pages.length).toBeLessThan(10);
    }
    // 500 minutes a page; minutes 45-51 and 58-69 have no bar (the late USD row of 52 priced 52-57).
    expect(pages.map((p) => p.length)).toEqual([500, 500, SPAN - 1000 - 19]);
    const walked = pages.reverse().flat();
    const { bars } = await storedAndRecomputed(db.db, at(0), at(SPAN));
    expect(walked).toEqual(bars.map((b) => new Date(b.ts).toISOString()));
  });
});
