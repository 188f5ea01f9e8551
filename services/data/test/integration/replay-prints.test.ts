import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import type { RequestListener } from 'node:http';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger } from '@meridian/observability';
import { DERIVED_HISTORY_MS, startMarketReplay } from '../../src/jobs/spot/market-replay.js';
import { loadRecordedBars, RECORDED_MARKETS } from '../../src/adapters/parsers/spot/recorded-market.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';

const MINUTE = 60_000;

/**
 * The service's clock: 2026-12-11 12:10:30 UTC plays 2023-03-09 12:09 as its newest closed minute, 90 s
 * before (the market replay plays wall time w at 2023-03-08 + (w mod 7 days)), inside a gap of the
 * recording: Kraken's BTC-USDC has no trade from 11:49 to 12:12 that day.
 */
const AT = Date.parse('2026-12-11T12:10:30Z');
const PLAYED_BAR = Date.parse('2023-03-09T12:09:00Z');

/** Offline, trades and 1s bars answer: derived from the replayed 1m bars, and said so. */
describe('trades and 1s bars under replay', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;
  const get = (path: string) => request(app).get(path).set(headers);

  beforeAll(async () => {
    db = await migratedDatabase('data_replay_prints');
    const deps = testDeps(db, { INGEST_MODE: 'replay' }, () => AT);
    app = testApp(deps);
    headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_rp',
      key_id: 'key_rp',
    });
    const replay = startMarketReplay(
      deps.ingestor,
      createLogger('replay-prints', { level: 'silent' }),
      () => AT,
    );
    await replay.settled();
    await replay.stop();
    deps.firstLoad.settle();
  });
  afterAll(() => db.drop());

  it('answers recent trades of every venue, both taker sides, marked as derived from the replayed bars', async () => {
    for (const path of ['/v1/data/crypto/spot/trades?entity=BTC-USD', '/v1/trades?entity=BTC-USDT']) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.body.data.length).toBeGreaterThan(100);
      expect(new Set(res.body.data.map((t: { taker_side: string }) => t.taker_side))).toEqual(
        new Set(['buy', 'sell']),
      );
      expect(res.body.meta.replay).toMatchObject({ live: false });
      expect(res.body.provenance.method).toMatch(/trade prints and 1s bars derived from those 1m bars/);
      expect(res.body.provenance.method).toMatch(/not recorded prints/);
      expect(res.body.meta.staleness_ms).toBeLessThan(3 * MINUTE);
      expect(res.body.meta.confidence).toBeGreaterThan(0.4);
    }
    const kraken = await get('/v1/data/crypto/spot/trades?entity=BTC-USDC&source=kraken');
    expect(kraken.status).toBe(200);
    expect(kraken.body.data[0].trade_id).toMatch(/^replay-\d+-\d+$/);
  });

  it('derives only the last hour of prints, and each minute agrees with its replayed 1m bar', async () => {
    const oldest = await get('/v1/data/crypto/spot/trades?entity=BTC-USD&source=binanceus');
    let cursor = oldest.body.meta.next_cursor as string | null;
    let rows = oldest.body.data as { ts: string; price: number; size: number }[];
    while (cursor) {
      const next = await get(`/v1/data/crypto/spot/trades?entity=BTC-USD&source=binanceus&cursor=${cursor}`);
      rows = [...next.body.data, ...rows];
      cursor = next.body.meta.next_cursor;
    }
    expect(AT - Date.parse(rows[0]!.ts)).toBeLessThanOrEqual(DERIVED_HISTORY_MS + MINUTE);
    const last = rows[rows.length - 1]!;
    const minute = Math.floor(Date.parse(last.ts) / MINUTE) * MINUTE;
    const inMinute = rows.filter((r) => Math.floor(Date.parse(r.ts) / MINUTE) * MINUTE === minute);
    const bars = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=1m');
    const bar = bars.body.data.find((b: { ts: string }) => Date.parse(b.ts) === minute);
    expect(inMinute[0]!.price).toBe(bar.open);
    expect(last.price).toBe(bar.close);
    expect(inMinute.reduce((s, r) => s + r.size, 0)).toBeCloseTo(bar.volume, 6);
  });

  it('prices the reference on the 1m bar, which closes when its minute does, not on its earlier 1s bars', async () => {
    const res = await get('/v1/data/crypto/spot/reference_price?entity=BTC-USD');
    expect(res.status).toBe(200);
    // A minute's derived 1s bars open after its 1m bar but close no later (at its last print): the quote
    // of every market is its 1m bar, named by its minute.
    const sources = res.body.provenance.sources as { venue: string; symbol: string; ts: string }[];
    // The recording's dense markets price it; Kraken's BTC-USDC, in its gap, drops out as stale, its
    // newest bar the one of its last trade, read from the recorded rows (played 90 s before AT).
    expect(sources.map((x) => `${x.venue} ${x.symbol}`)).toEqual(
      expect.arrayContaining(['binanceus BTC-USD', 'binanceus BTC-USDT']),
    );
    const kraken = RECORDED_MARKETS.find((m) => m.venue === 'kraken' && m.symbol === 'BTC-USDC')!;
    const lastTrade = loadRecordedBars(kraken).findLast((b) => b.ts <= PLAYED_BAR && b.volume > 0)!;
    expect(new Date(lastTrade.ts).toISOString()).toBe('2023-03-09T11:49:00.000Z');
    const age = (90_000 + PLAYED_BAR - lastTrade.ts) / 1000;
    const excluded = res.body.provenance.excluded as { venue: string; symbol: string; reason: string }[];
    expect(excluded.filter((e) => /stale/.test(e.reason))).toEqual([
      { venue: 'kraken', symbol: 'BTC-USDC', reason: `stale: newest bar is ${age} s old` },
    ]);
    expect(excluded.filter((e) => e.symbol !== 'BTC-USDC')).toEqual([]);
    for (const s of sources) expect([s.ts, Date.parse(s.ts) % MINUTE]).toEqual([s.ts, 0]);
  });

  it('keeps deriving as the replay plays on, from the minutes it plays and no earlier', async () => {
    const rolling = await migratedDatabase('data_replay_prints_rolling');
    try {
      const deps = testDeps(rolling, { INGEST_MODE: 'replay' });
      // From five minutes before the loop's seam (2026-12-17 00:00, where the recording wraps from
      // 2023-03-14 23:59 to 2023-03-08 00:00) to five minutes after it.
      let clock = Date.parse('2026-12-16T23:55:00Z');
      const newestPrint = async () => {
        const { rows } = await sql<{ ts: Date | null; n: string }>`
          select max(ts) as ts, count(*) as n from data.trades where source = 'binanceus' and symbol = 'BTC-USD'`.execute(
          rolling.db,
        );
        return { ts: rows[0]!.ts?.getTime(), n: Number(rows[0]!.n) };
      };
      const replay = startMarketReplay(
        deps.ingestor,
        createLogger('rolling', { level: 'silent' }),
        () => clock,
      );
      try {
        await replay.settled();
        const first = await newestPrint();
        expect(first.ts).toBeLessThan(clock);
        const oldest = await sql<{ ts: Date }>`select min(ts) as ts from data.trades`.execute(rolling.db);
        expect(oldest.rows[0]!.ts.getTime()).toBeGreaterThanOrEqual(clock - DERIVED_HISTORY_MS - MINUTE);
        clock += 10 * MINUTE;
        // The next tick (every 5 s) plays the ten minutes since, their prints with them.
        await new Promise((resolve) => setTimeout(resolve, 5_500));
        await replay.settled();
        const later = await newestPrint();
        expect(later.ts).toBeGreaterThanOrEqual(first.ts! + 8 * MINUTE);
        expect(later.ts).toBeLessThan(clock);
        expect(later.n).toBeGreaterThan(first.n);
      } finally {
        await replay.stop();
      }
    } finally {
      await rolling.drop();
    }
  });

  it('answers 1s bars, combined and per venue, that roll up to the 1m bars', async () => {
    const combined = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1s');
    expect(combined.status).toBe(200);
    expect(combined.body.data.length).toBeGreaterThan(10);
    expect(combined.body.meta.staleness_ms).toBeLessThan(3 * MINUTE);
    const seconds = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USDC&source=kraken&interval=1s');
    expect(seconds.status).toBe(200);
    const rows = seconds.body.data as { ts: string; high: number; low: number; volume: number }[];
    const minute = Math.floor(Date.parse(rows[rows.length - 1]!.ts) / MINUTE) * MINUTE;
    const inMinute = rows.filter((r) => Math.floor(Date.parse(r.ts) / MINUTE) * MINUTE === minute);
    const bars = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USDC&source=kraken&interval=1m');
    const bar = bars.body.data.find((b: { ts: string }) => Date.parse(b.ts) === minute);
    expect(Math.max(...inMinute.map((r) => r.high))).toBe(bar.high);
    expect(Math.min(...inMinute.map((r) => r.low))).toBe(bar.low);
    expect(inMinute.reduce((s, r) => s + r.volume, 0)).toBeCloseTo(bar.volume, 6);
  });
});
