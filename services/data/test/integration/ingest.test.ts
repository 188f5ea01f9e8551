import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { catalogFor, type IngestBatch } from '@meridian/contracts';
import { ingest as ingestIn } from '../../src/flows/ingest.js';
import { createIngestor } from '../../src/flows/ingestor.js';
import { ingestRpc } from '../../src/rpc/ingest.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';

/** Ingestion bound by the replay's catalogue (the recorded BTC markets), as INGEST_MODE=off and replay are. */
const ingest = (db: Parameters<typeof ingestIn>[0], batch: IngestBatch) =>
  ingestIn(db, batch, catalogFor('replay'));

const candles: IngestBatch = {
  kind: 'candles',
  source: 'binanceus',
  symbol: 'BTC-USD',
  interval: '1m',
  rows: [
    { ts: '2023-03-10T23:59:00Z', open: 10, high: 12, low: 9, close: 11, volume: 1, trade_count: 3 },
    { ts: '2023-03-11T00:00:00Z', open: 11, high: 13, low: 10, close: 12, volume: 2, trade_count: null },
    { ts: '2023-03-11T00:02:00Z', open: 12, high: 14, low: 8, close: 13, volume: 3 },
  ],
};

describe('ingest', () => {
  let db: MigratedDatabase;
  beforeAll(async () => {
    db = await migratedDatabase('data_ingest');
  });
  afterAll(() => db.drop());

  it('stores a batch once: a replayed batch changes nothing, a corrected row replaces the stored one', async () => {
    expect(await ingest(db.db, candles)).toMatchObject({
      ok: true,
      value: { received: 3, inserted: 3, updated: 0, unchanged: 0 },
    });
    expect(await ingest(db.db, candles)).toMatchObject({
      ok: true,
      value: { inserted: 0, updated: 0, unchanged: 3 },
    });
    const corrected = { ...candles, rows: [{ ...candles.rows[2]!, close: 13.5 }] } as IngestBatch;
    expect(await ingest(db.db, corrected)).toMatchObject({
      ok: true,
      value: { inserted: 0, updated: 1, unchanged: 0 },
    });
    const rows = await db.db
      .selectFrom('candles_1m')
      .select(['ts', 'close', 'quote'])
      .orderBy('ts')
      .execute();
    expect(rows.map((r) => r.close)).toEqual([11, 12, 13.5]);
    expect(rows[0]!.quote).toBe('USD');
  });

  it('keeps exact hourly and daily aggregates of the 1m bars', async () => {
    const days = await db.db
      .selectFrom('candle_rollups')
      .selectAll()
      .where('bucket', '=', '1d')
      .orderBy('ts')
      .execute();
    expect(days.map((d) => [d.ts.toISOString(), d.open, d.high, d.low, d.close, d.volume, d.bars])).toEqual([
      ['2023-03-10T00:00:00.000Z', 10, 12, 9, 11, 1, 1],
      ['2023-03-11T00:00:00.000Z', 11, 14, 8, 13.5, 5, 2],
    ]);
  });

  it('concurrent ingests into one hour leave the roll-up equal to brute force', async () => {
    const symbol = 'BTC-USD';
    const bar = (hour: number, minute: number) => ({
      ts: new Date(Date.UTC(2023, 2, 12, hour, minute)).toISOString(),
      open: 100 + minute,
      high: 200 + minute,
      low: 50 - minute / 100,
      close: 150 + minute,
      volume: 1 + minute,
      trade_count: minute,
    });
    const batch = (rows: ReturnType<typeof bar>[]): IngestBatch => ({
      kind: 'candles',
      source: 'race',
      symbol,
      interval: '1m',
      rows,
    });
    // Each hour gets two batches at once, of different minutes; each writes the hour's aggregate.
    for (let hour = 0; hour < 12; hour++)
      await Promise.all([
        ingest(db.db, batch(Array.from({ length: 30 }, (_, m) => bar(hour, m)))),
        ingest(db.db, batch(Array.from({ length: 30 }, (_, m) => bar(hour, 30 + m)))),
      ]);
    const hours = await db.db
      .selectFrom('candle_rollups')
      .select(['ts', 'open', 'high', 'low', 'close', 'volume', 'trade_count', 'bars'])
      .where('bucket', '=', '1h')
      .where('source', '=', 'race')
      .orderBy('ts')
      .execute();
    const minutes = Array.from({ length: 60 }, (_, m) => m);
    expect(hours.map((h) => ({ ...h, ts: h.ts.toISOString() }))).toEqual(
      Array.from({ length: 12 }, (_, hour) => ({
        ts: new Date(Date.UTC(2023, 2, 12, hour)).toISOString(),
        open: 100,
        high: 259,
        low: 50 - 59 / 100,
        close: 209,
        volume: minutes.reduce((s, m) => s + 1 + m, 0),
        trade_count: minutes.reduce((s, m) => s + m, 0),
        bars: 60,
      })),
    );
  });

  it('stores every kind of batch idempotently', async () => {
    const batches: IngestBatch[] = [
      {
        kind: 'trades',
        source: 'kraken',
        symbol: 'BTC-USDC',
        rows: [{ trade_id: '1', ts: '2023-03-11T00:00:01Z', price: 20000, size: 0.1, taker_side: 'buy' }],
      },
      {
        kind: 'option_marks',
        source: 'deribit',
        rows: [
          {
            instrument: 'BTC-22MAY20-9250-P',
            ts: '2020-05-21T23:19:53Z',
            underlying: 'BTC',
            expiry: '2020-05-22T08:00:00Z',
            strike: 9250,
            option_type: 'put',
            underlying_px: 9096.11,
            mark_price_usd: 193.3,
            mark_iv: 0.8505,
            delta: -0.8,
            gamma: 0.001,
            vega: 0.9,
            theta: -40,
            open_interest: 418.9,
          },
        ],
      },
      {
        kind: 'funding',
        source: 'deribit',
        symbol: 'BTC-USD',
        rows: [{ ts: '2023-03-11T00:00:00Z', funding_rate: 0.0001 }],
      },
      {
        kind: 'mark_prices',
        source: 'deribit',
        symbol: 'BTC-USD',
        rows: [{ ts: '2023-03-11T00:00:00Z', mark_price: 20010 }],
      },
      {
        kind: 'observations',
        source: 'noaa_swpc',
        rows: [
          { key: '', metric: 'planetary_kp', ts: '2023-03-11T00:00:00Z', value: 3.33, payload: { a: 1 } },
        ],
      },
    ];
    for (const batch of batches) {
      expect(await ingest(db.db, batch)).toMatchObject({ ok: true, value: { inserted: 1, updated: 0 } });
      expect(await ingest(db.db, batch)).toMatchObject({
        ok: true,
        value: { inserted: 0, updated: 0, unchanged: 1 },
      });
    }
    const obs = await db.db.selectFrom('observations').select(['value', 'payload']).executeTakeFirstOrThrow();
    expect([Number(obs.value), obs.payload]).toEqual([3.33, { a: 1 }]);
  });

  /** An option mark on SOL, an underlying the replay catalogue does not list. */
  const solOptionMark = (ts: string) => ({
    instrument: 'SOL-22MAY20-200-C',
    ts,
    underlying: 'SOL',
    expiry: '2023-03-12T08:00:00Z',
    strike: 200,
    option_type: 'call' as const,
    underlying_px: 210,
    mark_price_usd: 12,
    mark_iv: 0.8,
    delta: 0.5,
    gamma: null,
    vega: null,
    theta: null,
    open_interest: 1,
  });

  it('refuses a market the catalogue does not list, naming the field, and stores nothing of it', async () => {
    const rpc = ingestRpc(createIngestor(db.db, catalogFor('replay')));
    const refused = async (batch: IngestBatch) => {
      const reply = await rpc.handler(batch);
      if (reply.ok) throw new Error(`${batch.kind} ${JSON.stringify(batch)} was stored`);
      return reply.problem;
    };
    const bar = { ts: '2023-03-11T00:00:00Z', open: 1, high: 1, low: 1, close: 1, volume: 1 };
    const eur = await refused({
      kind: 'candles',
      source: 'x',
      symbol: 'BTC-EUR',
      interval: '1m',
      rows: [bar],
    });
    expect(eur).toMatchObject({ status: 400, error_category: 'validation_failed' });
    expect(eur.errors).toEqual([
      { path: 'batch.symbol', message: expect.stringContaining('BTC-EUR is not a crypto/spot market') },
    ]);
    const eth = await refused({
      kind: 'trades',
      source: 'x',
      symbol: 'ETH-USD',
      rows: [{ trade_id: '1', ts: bar.ts, price: 1, size: 1, taker_side: 'buy' }],
    });
    expect(eth.errors![0]!.path).toBe('batch.symbol');
    const perp = await refused({
      kind: 'funding',
      source: 'x',
      symbol: 'PEPE-USDT',
      rows: [{ ts: bar.ts, funding_rate: 0 }],
    });
    expect(perp.detail).toContain('PEPE-USDT is not a perpetual of a crypto/futures base');
    const option = await refused({ kind: 'option_marks', source: 'deribit', rows: [solOptionMark(bar.ts)] });
    expect(option.errors![0]!.path).toBe('batch.rows.0.underlying');
    const stored = await db.db.selectFrom('candles_1m').select('symbol').where('source', '=', 'x').execute();
    expect(stored).toEqual([]);
    // A quote currency's own USD market is read by the reference price, so it is stored; a perp of BTC
    // in any quote too.
    expect(
      await ingest(db.db, { kind: 'candles', source: 'x', symbol: 'USDC-USD', interval: '1m', rows: [bar] }),
    ).toMatchObject({ ok: true, value: { inserted: 1 } });
    expect(
      await ingest(db.db, {
        kind: 'mark_prices',
        source: 'x',
        symbol: 'BTC-USDC',
        rows: [{ ts: bar.ts, mark_price: 2 }],
      }),
    ).toMatchObject({ ok: true, value: { inserted: 1 } });
    // Live mode's perpetuals and option underlyings (LIVE_DERIVATIVES) are stored in any mode.
    expect(
      await ingest(db.db, {
        kind: 'funding',
        source: 'x',
        symbol: 'ETH-USDT',
        rows: [{ ts: bar.ts, funding_rate: 0.0001 }],
      }),
    ).toMatchObject({ ok: true, value: { inserted: 1 } });
  });
});
