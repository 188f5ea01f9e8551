import { catalogFor } from '@meridian/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@meridian/observability';
import { sql } from 'kysely';
import { retentionCutoffs } from '../../src/domain/retention.js';
import { ingest } from '../../src/flows/ingest.js';
import { purgeExpired, startRetentionPurge } from '../../src/jobs/retention-purge.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const HOUR = 3_600_000;
const SETTINGS = { candles1sHours: 48, tradesDays: 7 };
const iso = (ms: number) => new Date(ms).toISOString();
const bar = (ts: number) => ({ ts: iso(ts), open: 1, high: 2, low: 1, close: 2, volume: 1, trade_count: 1 });

/** Per market: `old` rows past the cutoff, `kept` rows from the cutoff on (the first exactly at it). */
async function seed(db: MigratedDatabase) {
  await sql`truncate data.candles_1s, data.trades, data.candles_1m, data.candle_rollups, data.observations`.execute(
    db.db,
  );
  const secondsCut = NOW - 48 * HOUR;
  const tradesCut = NOW - 7 * 24 * HOUR;
  // Two bases (BTC, USDC) for the 1s bars, so the purge walks more than one; trades are of spot markets.
  for (const [source, symbol, tradeSymbol] of [
    ['binanceus', 'BTC-USD', 'BTC-USD'],
    ['kraken', 'USDC-USD', 'BTC-USDC'],
  ] as const) {
    const seconds = [...Array(7).keys()].map((i) => secondsCut - (i + 1) * 1000);
    const recent = [...Array(4).keys()].map((i) => secondsCut + i * 1000);
    await ingest(
      db.db,
      {
        kind: 'candles',
        source,
        symbol,
        interval: '1s',
        rows: [...seconds, ...recent].map(bar),
      },
      catalogFor('replay'),
    );
    const trades = [
      ...[...Array(5).keys()].map((i) => tradesCut - (i + 1) * HOUR),
      ...[...Array(3).keys()].map((i) => tradesCut + i * HOUR),
    ];
    await ingest(
      db.db,
      {
        kind: 'trades',
        source,
        symbol: tradeSymbol,
        rows: trades.map((ts, i) => ({
          trade_id: String(i),
          ts: iso(ts),
          price: 2,
          size: 1,
          taker_side: 'buy',
        })),
      },
      catalogFor('replay'),
    );
  }
  // History far older than both cutoffs, which the purge must never touch.
  const old = NOW - 30 * 24 * HOUR;
  await ingest(
    db.db,
    {
      kind: 'candles',
      source: 'kraken',
      symbol: 'BTC-USD',
      interval: '1m',
      rows: [bar(old)],
    },
    catalogFor('replay'),
  );
  await ingest(
    db.db,
    {
      kind: 'observations',
      source: 'noaa_swpc',
      rows: [{ key: '', metric: 'planetary_kp', ts: iso(old), value: 3, payload: {} }],
    },
    catalogFor('replay'),
  );
}

async function counts(db: MigratedDatabase) {
  const count = async (table: 'candles_1s' | 'trades' | 'candles_1m' | 'candle_rollups' | 'observations') =>
    Number(
      (
        await db.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    candles_1s: await count('candles_1s'),
    trades: await count('trades'),
    candles_1m: await count('candles_1m'),
    candle_rollups: await count('candle_rollups'),
    observations: await count('observations'),
  };
}

describe('retention purge', () => {
  let db: MigratedDatabase;
  beforeAll(async () => {
    db = await migratedDatabase('data_retention');
  });
  afterAll(() => db.drop());

  it('deletes expired 1s bars and trades in bounded batches, keeps recent rows and the history', async () => {
    await seed(db);
    expect(await counts(db)).toEqual({
      candles_1s: 22,
      trades: 16,
      candles_1m: 1,
      candle_rollups: 2,
      observations: 1,
    });
    const report = await purgeExpired(db.db, retentionCutoffs(NOW, SETTINGS), 3);
    expect(report).toEqual({ skipped: false, deleted: { candles_1s: 14, trades: 10 } });
    expect(await counts(db)).toEqual({
      candles_1s: 8,
      trades: 6,
      candles_1m: 1,
      candle_rollups: 2,
      observations: 1,
    });
    const oldest1s = await db.db
      .selectFrom('candles_1s')
      .select((eb) => eb.fn.min('ts').as('ts'))
      .executeTakeFirstOrThrow();
    expect(oldest1s.ts).toEqual(new Date(NOW - 48 * HOUR));
    expect(await purgeExpired(db.db, retentionCutoffs(NOW, SETTINGS), 3)).toEqual({
      skipped: false,
      deleted: { candles_1s: 0, trades: 0 },
    });
  });

  it('is harmless when replicas purge at the same time: one works, the others skip or find nothing', async () => {
    await seed(db);
    const reports = await Promise.all(
      [1, 2, 3].map(() => purgeExpired(db.db, retentionCutoffs(NOW, SETTINGS), 2)),
    );
    const worked = reports.flatMap((r) => (r.skipped ? [] : [r.deleted]));
    expect(worked.length).toBeGreaterThanOrEqual(1);
    expect(worked.reduce((s, d) => s + d.candles_1s!, 0)).toBe(14);
    expect(worked.reduce((s, d) => s + d.trades!, 0)).toBe(10);
    expect(await counts(db)).toMatchObject({ candles_1s: 8, trades: 6, candles_1m: 1, observations: 1 });
  });

  it('runs as a background task at start, with the cutoffs of its clock', async () => {
    await seed(db);
    const job = startRetentionPurge(
      db.db,
      createLogger('data-test', { level: 'silent' }),
      SETTINGS,
      () => NOW + HOUR,
    );
    await job.settled();
    await job.stop();
    // One hour later: every 1s bar (all were within seconds of the old cutoff) and the trade at it expired.
    expect(await counts(db)).toMatchObject({ candles_1s: 0, trades: 4, candles_1m: 1, observations: 1 });
  });
});
