import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { LIVE_SPOT_MARKETS } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startUpstreamPeer, type UpstreamPeer } from '@meridian/test-peers';
import { COINBASE_MARKETS } from '../../src/adapters/connectors/spot/coinbase-spot.js';
import type { Deps } from '../../src/app.js';
import { testApp, testDeps } from '../support/app.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { recording } from '../support/recordings.js';

const MINUTE = 60_000;

/**
 * Coinbase's recorded ETH-USD answers moved onto the present by whole minutes (the newest candle is the
 * current minute), as a live answer would be: the reference price drops a venue whose last print is old.
 */
async function presentCoinbase(): Promise<{ candles: string; trades: string }> {
  const candles = JSON.parse(recording('coinbase_spot/candles_ETH-USD.json')) as number[][];
  const newest = Math.max(...candles.map((c) => c[0]!)) * 1000;
  const shift = Math.floor((Date.now() - newest) / MINUTE) * MINUTE;
  const trades = JSON.parse(recording('coinbase_spot/trades_ETH-USD.json')) as { time: string }[];
  return {
    candles: JSON.stringify(candles.map(([t, ...rest]) => [t! + shift / 1000, ...rest])),
    trades: JSON.stringify(
      trades.map((t) => ({ ...t, time: new Date(Date.parse(t.time) + shift).toISOString() })),
    ),
  };
}

describe('live mode serves the live spot markets, ETH-USD as BTC', () => {
  let db: MigratedDatabase;
  let peer: UpstreamPeer;
  let deps: Deps;
  let headers: Record<string, string>;
  const get = (path: string, d: Deps = deps) => request(testApp(d)).get(path).set(headers);

  beforeAll(async () => {
    db = await migratedDatabase('data_live_spot');
    peer = await startUpstreamPeer();
    for (const product of Object.values(COINBASE_MARKETS)) {
      peer.answer(`/products/${product}/candles`, { body: '[]' });
      peer.answer(`/products/${product}/trades`, { body: '[]' });
    }
    const eth = await presentCoinbase();
    peer.answer('/products/ETH-USD/candles', { body: eth.candles });
    peer.answer('/products/ETH-USD/trades', { body: eth.trades });
    // The service's own wiring: INGEST_MODE=live, the connector chosen and pointed at the peer by env.
    deps = testDeps(db, {
      INGEST_MODE: 'live',
      INGEST_CONNECTORS: 'coinbase_spot',
      INGEST_URL_COINBASE_SPOT: peer.url,
    });
    deps.live!.start();
    await deps.live!.firstPolls();
    headers = await callerHeaders({ plan: 'pro', auth: 'api_key', account_id: 'acct_ls', key_id: 'key_ls' });
  });
  afterAll(async () => {
    await deps.live?.stop();
    await peer.close();
    await db.drop();
  });

  it('polled the venue through the configured connector', () => {
    expect(deps.live!.report()).toEqual({ coinbase_spot: expect.objectContaining({ state: 'ok' }) });
  });

  it('answers the reference price of ETH-USD from the venue that printed it', async () => {
    const res = await get('/v1/data/crypto/spot/reference_price?entity=ETH-USD');
    expect(res.status).toBe(200);
    // The 1m bar of 12:02 (the venue's candle, close 3106.4) closes after the newest 1s bar built from
    // the trades (12:02:02): the reference price takes a 1s bar only when it closes later (candles.ts).
    expect(res.body.data.price).toBeCloseTo(3106.4, 6);
    expect(res.body.meta.venues).toEqual(['coinbase']);
  });

  it('answers ETH-USD OHLCV combined and per venue, and its taker trades', async () => {
    const combined = await get('/v1/data/crypto/spot/ohlcv?entity=ETH-USD&interval=1m');
    expect(combined.status).toBe(200);
    expect((combined.body.data as { close: number }[]).map((r) => r.close)).toEqual([3102.5, 3108.8, 3106.4]);
    const own = await get('/v1/data/crypto/spot/ohlcv?entity=ETH-USD&source=coinbase&interval=1m');
    expect(own.status).toBe(200);
    expect(own.body.data).toHaveLength(3);
    const trades = await get('/v1/data/crypto/spot/trades?entity=ETH-USD&source=coinbase');
    expect(trades.status).toBe(200);
    // Coinbase's recording says the makers' sides; served are the takers'.
    expect((trades.body.data as { taker_side: string }[]).map((t) => t.taker_side).sort()).toEqual(
      ['buy', 'buy', 'buy', 'sell', 'sell'].sort(),
    );
  });

  it('lists the 19 live markets with their venues in /v1/catalog', async () => {
    const res = await get('/v1/catalog');
    const crypto = (
      res.body.data.categories as { category: string; products: Record<string, unknown>[] }[]
    ).find((c) => c.category === 'crypto')!;
    const spot = crypto.products.find((p) => p.product === 'spot')!;
    expect(spot.entities).toEqual([...LIVE_SPOT_MARKETS]);
    expect(spot.sources).toEqual(['binance', 'coinbase', 'kraken', 'okx', 'bybit', 'bitstamp']);
    expect((spot.venue_entities as Record<string, string[]>).coinbase).toContain('ETH-USD');
    expect((spot.metrics as { metric: string; served_from?: string }[])[0]).toMatchObject({
      metric: 'reference_price',
      served_from: 'live',
    });
  });

  it('refuses ETH-USD where the mode does not serve it (replay catalogue), as before', async () => {
    const replay = testDeps(db);
    const res = await get('/v1/data/crypto/spot/reference_price?entity=ETH-USD', replay);
    expect(res.status).toBe(400);
    expect(res.body.errors ?? res.body.detail).toBeDefined();
    const refused = await replay.ingestor.ingest({
      kind: 'candles',
      source: 'coinbase',
      symbol: 'ETH-USD',
      interval: '1m',
      rows: [],
    });
    expect(refused).toMatchObject({ ok: false });
  });
});
