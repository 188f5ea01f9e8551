import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import type { IngestBatch } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger } from '@meridian/observability';
import { RECORDING } from '../../src/adapters/parsers/spot/recorded-market.js';
import { startMarketReplay } from '../../src/jobs/spot/market-replay.js';
import { loopedRecordedTime } from '../../src/domain/replay-clock.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import { marketRecording } from '../support/recordings.js';

const MINUTE = 60_000;

/** A recorded CSV read here apart from the service's parsers: open time (ms) to its cells. */
function recordedRows(file: string, time: (cell: string) => number): Map<number, number[]> {
  const text = marketRecording(file);
  const rows = new Map<number, number[]>();
  for (const line of text.split('\n').slice(1)) {
    if (line.trim() === '') continue;
    const cells = line.split(',');
    rows.set(time(cells[0]!), cells.map(Number));
  }
  return rows;
}
const perpRows = (base: string) =>
  recordedRows(`binance_usdm_perp_${base}USDT_1m_2023-03-08_2023-03-14.csv.gz`, Number);
const spotUsdt = recordedRows('binanceus_BTCUSDT_1m_2023-03-08_2023-03-14.csv.gz', (c) =>
  Date.parse(c.replace(' ', 'T')),
);
const CLOSE = 4;
const VOLUME = 5;
const QUOTE_VOLUME = 7;
const TAKER_BUY = 9;
const TAKER_BUY_QUOTE = 10;

/** The recorded open time of the bar an answer dated `ts` (the bar's close) was played from. */
const recordedOpen = (ts: string) => loopedRecordedTime(RECORDING, Date.parse(ts) - MINUTE);

/**
 * crypto/futures under INGEST_MODE=replay, played by the market replay from the recorded perpetuals:
 * each answer checked against the recorded row of the minute it plays.
 */
describe('futures under replay, from the recorded perpetuals', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let deps: ReturnType<typeof testDeps>;
  let headers: Record<string, string>;
  const btc = perpRows('BTC');
  const eth = perpRows('ETH');
  const get = (path: string) => request(app).get(path).set(headers);
  async function ok200(path: string) {
    const res = await get(path);
    expect([path, res.status, res.status === 200 ? null : res.body]).toEqual([path, 200, null]);
    return res.body;
  }

  beforeAll(async () => {
    db = await migratedDatabase('data_replay_futures');
    deps = testDeps(db, { INGEST_MODE: 'replay' });
    app = testApp(deps);
    headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_rf',
      key_id: 'key_rf',
    });
    const replay = startMarketReplay(deps.ingestor, createLogger('replay-futures', { level: 'silent' }));
    await replay.settled();
    await replay.stop();
    deps.firstLoad.settle();
  });
  afterAll(() => db.drop());

  it('last_price is the recorded close of the played minute, said to be a recording with its real time', async () => {
    for (const [entity, rows] of [
      ['BTC-USD', btc],
      ['ETH-USD', eth],
    ] as const) {
      const body = await ok200(`/v1/data/crypto/futures/last_price?entity=${entity}`);
      const [venue] = body.data.venues;
      const open = recordedOpen(venue.ts);
      expect(venue).toMatchObject({ venue: 'binance_futures', symbol: `${entity.split('-')[0]}-USDT` });
      expect(venue.last_price).toBe(rows.get(open)![CLOSE]);
      expect(Date.now() - Date.parse(venue.ts)).toBeLessThan(2 * MINUTE);
      expect(body.meta.replay).toEqual({
        live: false,
        recorded: `binance_futures:${venue.symbol}`,
        kind: 'recording',
        recorded_at: new Date(open + MINUTE).toISOString(),
        played_at: venue.ts,
      });
      expect(body.provenance.sources[0].recorded_ts).toBe(new Date(open + MINUTE).toISOString());
      expect(body.provenance.method).toMatch(/real Binance USD-M perpetual 1m trade bars/);
      // USDT converted with the rate the spot side measured on the BTC books, as the marks are.
      const mark = (await ok200(`/v1/data/crypto/futures/mark_price?entity=${entity}`)).data.venues[0];
      expect(venue.last_price_usd / venue.last_price).toBeCloseTo(mark.mark_price_usd / mark.mark_price, 6);
      expect(venue.last_price_usd / venue.last_price).toBeCloseTo(1, 1);
    }
  });

  it("mark_price of BTC is the recorded spot close plus the 5-minute mean premium; ETH's the mean close", async () => {
    const mark = await ok200('/v1/data/crypto/futures/mark_price?entity=BTC-USD');
    const [v] = mark.data.venues;
    const open = recordedOpen(v.ts);
    const minutes = [4, 3, 2, 1, 0].map((k) => open - k * MINUTE);
    const premium = minutes.map((m) => btc.get(m)![CLOSE]! - spotUsdt.get(m)![CLOSE]!);
    const index = spotUsdt.get(open)![CLOSE]!;
    expect(v.index_price).toBe(index);
    expect(v.mark_price).toBeCloseTo(index + premium.reduce((a, b) => a + b) / 5, 6);
    expect(mark.meta.replay.kind).toBe('recording');
    expect(mark.provenance.method).toMatch(/moving average of the premium/);

    const ethMark = await ok200('/v1/data/crypto/futures/mark_price?entity=ETH-USD');
    const [e] = ethMark.data.venues;
    const ethOpen = recordedOpen(e.ts);
    const closes = [4, 3, 2, 1, 0].map((k) => eth.get(ethOpen - k * MINUTE)![CLOSE]!);
    expect(e.index_price).toBeNull();
    expect(e.mark_price).toBeCloseTo(closes.reduce((a, b) => a + b) / 5, 6);
    expect(ethMark.provenance.method).toMatch(/no spot recorded/);
  });

  it('basis is the derived mark against the spot reference; ETH has none and says why', async () => {
    const basis = await ok200('/v1/data/crypto/futures/basis?entity=BTC-USD');
    const { mark_price: mark, reference_price: ref } = basis.data;
    expect(basis.data.basis).toBeCloseTo(((mark - ref) / ref) * 100, 5);
    const marks = await ok200('/v1/data/crypto/futures/mark_price?entity=BTC-USD');
    expect(mark).toBeCloseTo(marks.data.mark_price, 4);
    expect(basis.meta.replay.kind).toBe('recording');
    expect(basis.meta.replay.recorded).toMatch(/binance_futures:BTC-USDT/);
    expect(basis.meta.replay.recorded).toMatch(/binanceus:BTC-USD/);

    const eth = await get('/v1/data/crypto/futures/basis?entity=ETH-USD');
    expect(eth.status).toBe(404);
    expect(eth.body.detail).toMatch(/no spot reference_price for ETH-USD .*no ETH spot recording/);
  });

  it("funding of BTC is an estimate by Binance's formula from the recorded premiums, said so; ETH has none", async () => {
    const body = await ok200('/v1/data/crypto/futures/funding?entity=BTC-USD');
    const [v] = body.data.venues;
    expect(body.data.estimated).toBe(true);
    expect(v.estimated).toBe(true);
    expect(body.provenance.method).toMatch(/estimated from the replayed recording by Binance's formula/);
    // The premiums of the 8-hour interval so far, weighted 1..n, plus the clamped interest.
    const open = recordedOpen(v.ts);
    const start = Math.floor(open / (8 * 60 * MINUTE)) * 8 * 60 * MINUTE;
    let weighted = 0;
    let weights = 0;
    for (let m = start, w = 1; m <= open; m += MINUTE, w++) {
      const index = spotUsdt.get(m)![CLOSE]!;
      weighted += w * ((btc.get(m)![CLOSE]! - index) / index);
      weights += w;
    }
    const p = weighted / weights;
    expect(v.funding_rate).toBeCloseTo(p + Math.min(0.0005, Math.max(-0.0005, 0.0001 - p)), 8);
    expect(body.meta.replay.kind).toBe('recording');

    const eth = await get('/v1/data/crypto/futures/funding?entity=ETH-USD');
    expect(eth.status).toBe(404);
    expect(eth.body.detail).toMatch(/none was recorded.*spot recording of ETH/);
  });

  it('taker_flow splits the recorded volume of the minute by the taker-buy columns', async () => {
    for (const [entity, rows] of [
      ['BTC-USD', btc],
      ['ETH-USD', eth],
    ] as const) {
      const body = await ok200(`/v1/data/crypto/futures/taker_flow?entity=${entity}`);
      const row = rows.get(recordedOpen(body.data.venues[0].ts))!;
      expect(body.data).toMatchObject({
        symbol: entity,
        unit: 'base asset',
        base_asset: entity.split('-')[0],
        interval: '1m',
        buy_volume: row[TAKER_BUY],
        sell_volume: expect.closeTo(row[VOLUME]! - row[TAKER_BUY]!, 6),
        buy_quote_volume: row[TAKER_BUY_QUOTE],
        sell_quote_volume: expect.closeTo(row[QUOTE_VOLUME]! - row[TAKER_BUY_QUOTE]!, 4),
        buy_share: expect.closeTo(row[TAKER_BUY]! / row[VOLUME]!, 5),
      });
      expect(body.meta.replay.kind).toBe('recording');
    }
  });

  it('lists ETH-USD, and says in the catalogue how each futures metric is made', async () => {
    const res = await get('/v1/catalog');
    const futures = res.body.data.categories
      .find((c: { category: string }) => c.category === 'crypto')
      .products.find((p: { product: string }) => p.product === 'futures');
    expect(futures.entities).toEqual(['BTC-USD', 'ETH-USD']);
    const said = Object.fromEntries(
      futures.metrics.map((m: { metric: string; description: string; replayed_from: string }) => [
        m.metric,
        [m.replayed_from, m.description],
      ]),
    );
    expect(said.funding).toEqual(['recording', expect.stringMatching(/an estimate, not a recorded rate/)]);
    expect(said.mark_price).toEqual(['recording', expect.stringMatching(/derived, not recorded/)]);
    expect(said.taker_flow).toEqual(['recording', expect.stringMatching(/taker-buy volumes/)]);
  });

  // Last: they store other venues' prints beside the replay's.
  it('a venue whose newest mark or funding rate is older than 3 polls (3 min) is excluded as stale and named; a fresh one counts', async () => {
    const before = await ok200('/v1/data/crypto/futures/mark_price?entity=BTC-USD');
    const beforeFunding = await ok200('/v1/data/crypto/futures/funding?entity=BTC-USD');
    // Through the service's ingestor, as every write of a running service goes: it drops what was kept.
    const store = (batch: IngestBatch) => deps.ingestor.ingest(batch);
    const at = (ageMs: number) => new Date(Date.now() - ageMs).toISOString();
    await store({
      kind: 'mark_prices',
      source: 'okx',
      symbol: 'BTC-USD',
      rows: [{ ts: at(4 * MINUTE), mark_price: 99_999, index_price: null }],
    });
    await store({
      kind: 'funding',
      source: 'bybit',
      symbol: 'BTC-USDT',
      rows: [{ ts: at(4 * MINUTE), funding_rate: 0.5, interval_hours: 8 }],
    });
    for (const [metric, venue, what] of [
      ['mark_price', 'okx', 'BTC-USD mark'],
      ['basis', 'okx', 'BTC-USD mark'],
      ['funding', 'bybit', 'BTC-USDT funding rate'],
    ] as const) {
      const stale = await ok200(`/v1/data/crypto/futures/${metric}?entity=BTC-USD`);
      expect(stale.data.venues.map((v: { venue: string }) => v.venue)).toEqual(['binance_futures']);
      expect(stale.provenance.excluded).toContainEqual({
        venue,
        reason: expect.stringMatching(new RegExp(`^stale: newest ${what} is 2\\d\\d s old, beyond 180 s`)),
      });
    }
    expect((await ok200('/v1/data/crypto/futures/funding?entity=BTC-USD')).data.funding_rate).toBe(
      beforeFunding.data.funding_rate,
    );
    expect((await ok200('/v1/data/crypto/futures/mark_price?entity=BTC-USD')).data.mark_price).toBe(
      before.data.mark_price,
    );
    await store({
      kind: 'mark_prices',
      source: 'okx',
      symbol: 'BTC-USD',
      rows: [{ ts: at(30_000), mark_price: before.data.mark_price, index_price: null }],
    });
    const fresh = await ok200('/v1/data/crypto/futures/mark_price?entity=BTC-USD');
    expect(fresh.data.venues.map((v: { venue: string }) => v.venue)).toEqual(['binance_futures', 'okx']);
    expect(fresh.provenance.excluded).toEqual([]);
    // Only the recorded perp is said to be derived: okx's mark is its own.
    expect(fresh.provenance.method).toMatch(/the mark of BTC-USDT: index_price/);
  });
});
