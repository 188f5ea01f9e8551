import { describe, expect, it } from '@jest/globals';
import {
  CATALOG,
  LIVE_FUTURES_MARKETS,
  LIVE_SPOT_MARKETS,
  catalogFor,
  findMetric,
  replayDerivationOf,
  replayDescription,
  replaySourceOf,
  resolveEntity,
} from '../src/index.js';

const spotOf = (mode: 'live' | 'replay' | 'off') =>
  catalogFor(mode).products.find((p) => p.category === 'crypto' && p.product === 'spot')!;

describe('the catalogue of each ingest mode', () => {
  it('is the built catalogue as it is under off', () => {
    expect(catalogFor('off').products).toEqual(CATALOG);
  });

  it('is the built catalogue under replay but for what replay says: each description, and no series of one point', () => {
    const replay = catalogFor('replay');
    const changed: string[] = [];
    for (const built of CATALOG.flatMap((p) => p.metrics.map((m) => ({ p, m })))) {
      const { product: p, metric: m } = replay.findMetric(built.p.category, built.p.product, built.m.metric)!;
      expect({ ...p, metrics: [] }).toEqual({ ...built.p, metrics: [] });
      const said =
        m.status === 'live'
          ? replayDescription(
              built.m.description,
              replaySourceOf(p.category, p.product, m.metric),
              replayDerivationOf(p.category, p.product, m.metric),
            )
          : built.m.description;
      expect(m).toEqual({ ...built.m, description: said, series: m.series });
      if (m.series !== built.m.series) changed.push(`${p.category}/${p.product}/${m.metric}`);
    }
    expect(changed).toContain('weather/observations/temperature');
    expect(replay.findMetric('crypto', 'spot', 'ohlcv')!.metric.series).toBe(true);
    expect(replay.findMetric('crypto', 'options', 'chain')!.metric.description).toMatch(
      /\(replay of a real recording, not a live print\)$/,
    );
    expect(findMetric('crypto', 'options', 'chain')!.metric.description).not.toMatch(/replay/);
  });

  it('lists the 19 live spot markets with the venues that serve each under live', () => {
    const spot = spotOf('live');
    expect(spot.entities).toEqual([...LIVE_SPOT_MARKETS]);
    expect(spot.entities).toHaveLength(19);
    expect(spot.default_entity).toBe('BTC-USD');
    expect(spot.venue_entities!.kraken).toContain('DOGE-USD');
    expect(spot.venue_entities!.binance).not.toContain('BTC-USD');
    expect(catalogFor('live').findMetric('crypto', 'spot', 'reference_price')!.metric.entities).toEqual([
      'BTC-USD', 'ETH-USD', 'SOL-USD', 'XRP-USD', 'DOGE-USD', 'ADA-USD', 'AVAX-USD', 'LINK-USD', 'LTC-USD', 'DOT-USD',
    ]); // prettier-ignore
  });

  it('changes only the entities: metrics, gates and cadences stay; what only a recording holds is planned live', () => {
    const live = catalogFor('live');
    const recordedOnly = ['crypto/futures/last_price', 'crypto/futures/taker_flow'];
    for (const hit of catalogFor('replay').allMetrics()) {
      const path = `${hit.product.category}/${hit.product.product}/${hit.metric.metric}`;
      const same = live.findMetric(hit.product.category, hit.product.product, hit.metric.metric)!;
      expect([path, same.gate, same.metric.cadence_ms, same.metric.status]).toEqual([
        path,
        hit.gate,
        hit.metric.cadence_ms,
        recordedOnly.includes(path) ? 'planned' : hit.metric.status,
      ]);
    }
    expect(
      recordedOnly.map(
        (p) => catalogFor('replay').findMetric(...(p.split('/') as [string, string, string]))!.metric.status,
      ),
    ).toEqual(['live', 'live']);
    // Live mode lists other markets of crypto spot, futures and options only.
    const listedLive = (p: { category: string; product: string }) =>
      p.category === 'crypto' && ['spot', 'futures', 'options'].includes(p.product);
    expect(live.products.filter((p) => !listedLive(p))).toEqual(CATALOG.filter((p) => !listedLive(p)));
    expect(live.entitiesOf('crypto', 'futures')).toEqual([...LIVE_FUTURES_MARKETS]);
    expect(live.entitiesOf('crypto', 'options')).toEqual(['BTC', 'ETH']);
  });

  it('answers ETH-USD under live and refuses it under replay, by the same resolveEntity', () => {
    const hit = (mode: 'live' | 'replay') =>
      catalogFor(mode).findMetric('crypto', 'spot', 'reference_price')!;
    expect(resolveEntity(hit('live'), 'ETH-USD', undefined)).toEqual({ ok: true, entity: 'ETH-USD' });
    expect(resolveEntity(hit('replay'), 'ETH-USD', undefined)).toMatchObject({
      ok: false,
      refusal: { path: 'query.entity' },
    });
    const ohlcv = catalogFor('live').findMetric('crypto', 'spot', 'ohlcv')!;
    expect(resolveEntity(ohlcv, 'eth-usdt', 'binance')).toEqual({ ok: true, entity: 'ETH-USDT' });
    expect(resolveEntity(ohlcv, 'ETH-USDT', undefined)).toMatchObject({ ok: false });
    expect(resolveEntity(ohlcv, 'AVAX-USD', 'binance')).toMatchObject({
      ok: false,
      refusal: { message: expect.stringMatching(/AVAX-USD is listed by coinbase, kraken, bitstamp/) },
    });
  });
});
