import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { createMetrics } from '@meridian/observability';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import { BINANCE } from '../../src/adapters/connectors/spot/binance-spot.js';
import { KRAKEN } from '../../src/adapters/connectors/spot/kraken-spot.js';
import { spotConnector, type SpotVenue } from '../../src/adapters/connectors/spot/spot-venue.js';
import { createLiveIngest, type LiveIngest, type ConnectorReport } from '../../src/jobs/live-ingest.js';
import { testDeps } from '../support/app.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { at, CASES } from '../support/spot-venues.js';
import { recording } from '../support/recordings.js';

describe.each(CASES)('spot connector $spec.name on its recorded answers', (c) => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  const name = c.spec.name;
  const source = c.spec.venue;

  /** Every market answered empty, then the samples of the recorded market. */
  const answerAll = async () => {
    for (const venueSymbol of Object.values(c.spec.markets))
      for (const [path, body] of c.empty(venueSymbol)) peer.answer(path, { body });
    for (const [path, file] of c.samples) peer.answer(path, { body: recording(file) });
  };
  /** One first poll of the real connector (unpaced: the peer is on loopback) through the runner. */
  const poll = async (everyMs = 60_000): Promise<ConnectorReport> => {
    const deps = testDeps(db, { INGEST_MODE: 'live' });
    live = createLiveIngest(
      // Its own registry: the deps' own live ingest (INGEST_MODE=live) registered the metrics already.
      { ...deps, metrics: createMetrics('data', { defaultMetrics: false }) },
      [spotConnector(c.spec, { gapMs: 0 })],
      {
        urls: { [name]: peer.url },
        everyMs: { [name]: everyMs },
        only: [],
        keys: {},
        timeoutMs: 1000,
        maxBackoffMs: 60_000,
      },
    );
    live.start();
    await live.firstPolls();
    return live.report()[name]!;
  };
  const count = async (table: 'candles_1m' | 'candles_1s' | 'trades') =>
    Number(
      (
        await sql<{
          n: string;
        }>`select count(*)::text as n from ${sql.table(`data.${table}`)} where source = ${source}`.execute(
          db.db,
        )
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    db = await migratedDatabase(`data_spot_${source}`);
    peer = await startUpstreamPeer();
  });
  afterEach(async () => {
    await live?.stop();
    live = undefined;
  });
  afterAll(async () => {
    await peer.close();
    await db.drop();
  });

  it('answers nothing at first: an empty answer is empty, not a failure', async () => {
    for (const venueSymbol of Object.values(c.spec.markets))
      for (const [path, body] of c.empty(venueSymbol)) peer.answer(path, { body });
    expect(await poll()).toMatchObject({ state: 'empty', consecutive_failures: 0, last_rows: 0 });
    expect(await count('candles_1m')).toBe(0);
  });

  it("refuses in the venue's own error format, and writes nothing", async () => {
    await answerAll();
    peer.answer(c.failing, { status: c.error.status, body: recording(c.error.file) });
    const report = await poll();
    expect(report).toMatchObject({
      state: 'failing',
      last_error: {
        kind: 'http_error',
        ...(c.error.status === 200 ? {} : { status: c.error.status }),
      },
    });
    if (c.error.message) expect(report.last_error!.message).toMatch(c.error.message);
    expect(await count('candles_1m')).toBe(0);
    expect(await count('trades')).toBe(0);
  });

  it('waits as a 429 asks', async () => {
    await answerAll();
    peer.answer(c.failing, { status: 429, body: '{}', headers: { 'retry-after': '20' } });
    const report = await poll();
    expect(report).toMatchObject({
      state: 'rate_limited',
      last_error: { kind: 'rate_limited', status: 429 },
    });
    expect(Date.parse(report.next_poll_at!) - Date.parse(report.last_poll_at!)).toBeGreaterThanOrEqual(
      20_000,
    );
  });

  if (c.bodyRateLimit) {
    const file = c.bodyRateLimit;
    it('calls a rate-limit refusal in the body of a 200 rate_limited', async () => {
      await answerAll();
      peer.answer(c.failing, { body: recording(file) });
      expect(await poll()).toMatchObject({ state: 'rate_limited', last_error: { kind: 'rate_limited' } });
    });
  }

  it('stores the recorded candles, taker-side trades and 1s bars, asking for every market by its venue symbol', async () => {
    await answerAll();
    const before = peer.requests.length;
    const report = await poll();
    expect(report).toMatchObject({ state: 'ok', consecutive_failures: 0 });
    const candles = await sql<{
      symbol: string;
      ts: Date;
      open: string;
      high: string;
      low: string;
      close: string;
      volume: string;
    }>`
      select symbol, ts, open, high, low, close, volume from data.candles_1m where source = ${source} order by ts`.execute(
      db.db,
    );
    expect(candles.rows.map((r) => r.symbol)).toEqual([c.symbol, c.symbol, c.symbol]);
    expect(candles.rows.map((r) => r.ts.toISOString())).toEqual([at(0), at(60_000), at(120_000)]);
    expect(
      [
        candles.rows[0]!.open,
        candles.rows[0]!.high,
        candles.rows[0]!.low,
        candles.rows[0]!.close,
        candles.rows[0]!.volume,
      ].map(Number),
    ).toEqual(c.candle);

    const trades = await sql<{ symbol: string; trade_id: string; taker_side: string }>`
      select symbol, trade_id, taker_side from data.trades where source = ${source} order by ts, trade_id`.execute(
      db.db,
    );
    expect(trades.rows.map((t) => [t.trade_id, t.taker_side])).toEqual(c.trades);
    expect(new Set(trades.rows.map((t) => t.symbol))).toEqual(new Set([c.symbol]));

    const seconds = await sql<{ ts: Date; trade_count: number | null; volume: string }>`
      select ts, trade_count, volume from data.candles_1s where source = ${source} order by ts`.execute(
      db.db,
    );
    // Built: the first poll's oldest second may be partial (trades before it unseen) and its newest still
    // filling, so only 12:02:01 (two trades) and 12:02:02 (one) are bars. Native: Binance's own two.
    expect(seconds.rows.map((r) => r.ts.toISOString())).toEqual(
      c.seconds === 'native' ? [at(120_000), at(121_000)] : [at(121_000), at(122_000)],
    );
    if (c.seconds === 'built') expect(seconds.rows.map((r) => r.trade_count)).toEqual([2, 1]);

    const asked = new Set(peer.requests.slice(before).map(c.asked));
    expect(asked).toEqual(new Set(Object.values(c.spec.markets)));
  });
});

describe('spot connectors keep their trade cursors between polls', () => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let live: LiveIngest | undefined;
  beforeAll(async () => {
    db = await migratedDatabase('data_spot_cursors');
    peer = await startUpstreamPeer();
  });
  afterAll(async () => {
    await live?.stop();
    await peer.close();
    await db.drop();
  });

  it.each([
    [
      'binance_spot',
      BINANCE,
      '/api/v3/aggTrades',
      'binance_spot/aggTrades_BTCUSDT.json',
      'symbol',
      'BTCUSDT',
      'fromId',
      '3105000005',
    ],
    [
      'kraken_spot',
      KRAKEN,
      '/0/public/Trades',
      'kraken_spot/trades_XXBTZUSD.json',
      'pair',
      'XXBTZUSD',
      'since',
      '1795176123050000000',
    ],
  ] as [string, SpotVenue, string, string, string, string, string, string][])(
    '%s asks the next poll from where the last ended',
    async (_name, spec, path, file, key, symbol, cursor, value) => {
      peer.answer(path, { body: recording(file) });
      if (spec === BINANCE) peer.answer('/api/v3/klines', { body: '[]' });
      else peer.answer('/0/public/OHLC', { body: '{"error":[],"result":{"XXBTZUSD":[],"last":0}}' });
      const deps = testDeps(db, { INGEST_MODE: 'live' });
      live = createLiveIngest(
        { ...deps, metrics: createMetrics('data', { defaultMetrics: false }) },
        [spotConnector(spec, { gapMs: 0 })],
        {
          urls: { [spec.name]: peer.url },
          everyMs: { [spec.name]: 20 },
          only: [],
          keys: {},
          timeoutMs: 1000,
          maxBackoffMs: 1000,
        },
      );
      live.start();
      const end = Date.now() + 8000;
      const later = () =>
        peer.requests.filter((r) => r.path === path && r.query.get(key) === symbol && r.query.has(cursor));
      while (later().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
      await live.stop();
      live = undefined;
      expect(later()[0]!.query.get(cursor)).toBe(value);
    },
  );
});
