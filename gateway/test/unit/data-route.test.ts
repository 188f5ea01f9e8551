import { catalogFor } from '@meridian/contracts';
import { describe, expect, it } from '@jest/globals';
import { checkDataQuery } from '../../src/edge/query-check.js';
import { challengedUrl, dataTarget, isPriced, isSeriesRead } from '../../src/domain/data-route.js';
import { paymentRequired } from '../../src/domain/payment-required.js';
import { openApiDocument } from '../../src/domain/openapi.js';

/** The catalogue of INGEST_MODE=replay, the default. */
const REPLAY = catalogFor('replay');

const settings = { payTo: 'PayTo111', feePayer: 'Fee111' };

function priceOf(path: string, query: string): string {
  const target = dataTarget(path, REPLAY);
  if (!isPriced(target)) throw new Error(`${path} is not priced`);
  const series = isSeriesRead(target, new URLSearchParams(query));
  return paymentRequired(target.hit, `http://h${path}?${query}`, series, settings).accepts[0]!.amount;
}

describe('the series price follows the catalogue', () => {
  it('charges the series price for series=true only where the catalogue offers a series', () => {
    expect(priceOf('/v1/data/absurd_cosmos/space_weather/planetary_kp', 'series=true')).toBe('20000');
    expect(priceOf('/v1/data/absurd_cosmos/space_weather/planetary_kp', 'series=1')).toBe('10000');
    expect(priceOf('/v1/data/absurd_cosmos/space_weather/planetary_kp', '')).toBe('10000');
    // No series answer exists: the call is challenged at the single price (the data service refuses it).
    expect(priceOf('/v1/data/crypto/spot/reference_price', 'series=true')).toBe('10000');
    expect(priceOf('/v1/reference_price', 'series=true')).toBe('10000');
    expect(priceOf('/v1/data/crypto/futures/funding', 'series=true')).toBe('10000');
  });

  it('always charges the series price for a series-shaped metric', () => {
    expect(priceOf('/v1/data/crypto/spot/ohlcv', '')).toBe('20000');
    expect(priceOf('/v1/trades', 'series=false')).toBe('20000');
  });
});

describe('a keyless call is checked before a payment is asked for', () => {
  const hit = (path: string) => dataTarget(path, REPLAY)!.hit!;
  const check = (path: string, query: string) => checkDataQuery(hit(path), new URLSearchParams(query));

  it('refuses unknown parameters, bad values and combinations the metric cannot serve', () => {
    expect(check('/v1/data/crypto/spot/reference_price', 'entty=BTC-USDT')).toMatchObject({
      status: 400,
      errors: [{ path: 'query.entty' }],
    });
    expect(
      check('/v1/data/crypto/spot/reference_price', 'source=binanceus&series=yes')?.errors?.[0]?.path,
    ).toBe('query.series');
    // A venue the catalogue does not name may be stored: the data service looks and decides.
    expect(check('/v1/data/crypto/spot/reference_price', 'source=coinbase')).toBeUndefined();
    expect(check('/v1/data/crypto/spot/reference_price', 'entity=BTC-USDT')?.errors?.[0]?.path).toBe(
      'query.entity',
    );
    expect(check('/v1/data/crypto/spot/ohlcv', 'series=true')).toBeUndefined();
    expect(check('/v1/reference_price', 'entity=BTC-USD&source=kraken')).toBeUndefined();
    expect(check('/v1/data/absurd_cosmos/restless_earth/quakes_last_hour', 'entity=')).toBeUndefined();
  });

  it('echoes the data parameters only in the challenged resource URL, never a credential', () => {
    const url = challengedUrl(
      'https://api.example',
      '/v1/reference_price',
      new URLSearchParams('entity=BTC-USD&api_key=mk_live_x&token=t'),
    );
    expect(url).toBe('https://api.example/v1/reference_price?entity=BTC-USD');
    expect(challengedUrl('https://api.example', '/v1/ohlcv', new URLSearchParams(''))).toBe(
      'https://api.example/v1/ohlcv',
    );
  });
});

describe('a keyless call asking for what the metric does not answer', () => {
  it('is refused before a challenge: series=false on a series-only metric, series=true without history, interval off OHLCV', () => {
    const check = (path: string, query: string) =>
      checkDataQuery(dataTarget(path, REPLAY)!.hit!, new URLSearchParams(query))?.errors?.[0]?.path;
    expect(check('/v1/ohlcv', 'series=false')).toBe('query.series');
    expect(check('/v1/reference_price', 'series=true')).toBe('query.series');
    expect(check('/v1/reference_price', 'interval=1h')).toBe('query.interval');
    expect(check('/v1/ohlcv', 'interval=1h&series=true')).toBeUndefined();
  });

  it("checks the options chain's filters as the data service does: the chain only, call|put, a YYYY-MM-DD day", () => {
    const check = (path: string, query: string) =>
      checkDataQuery(dataTarget(path, REPLAY)!.hit!, new URLSearchParams(query))?.errors?.[0]?.path;
    expect(check('/v1/data/crypto/options/chain', 'option_type=put&expiry=2026-06-26')).toBeUndefined();
    expect(check('/v1/chain', 'option_type=call')).toBeUndefined();
    expect(check('/v1/data/crypto/options/chain', 'option_type=C')).toBe('query.option_type');
    expect(check('/v1/data/crypto/options/chain', 'expiry=2026-06-26T08:00:00Z')).toBe('query.expiry');
    expect(check('/v1/data/crypto/options/chain', 'expiry=2026-02-30')).toBe('query.expiry');
    expect(check('/v1/data/crypto/options/open_interest', 'option_type=call')).toBe('query.option_type');
    expect(check('/v1/reference_price', 'expiry=2026-06-26')).toBe('query.expiry');
  });
});

describe("the keyless checks follow the data service's INGEST_MODE", () => {
  const check = (mode: 'live' | 'replay', path: string, query: string) =>
    checkDataQuery(dataTarget(path, catalogFor(mode))!.hit!, new URLSearchParams(query))?.errors?.[0];

  it('takes ETH-USD and the live venues under live, and refuses them under replay as the data service does', () => {
    expect(check('live', '/v1/reference_price', 'entity=ETH-USD')).toBeUndefined();
    expect(check('live', '/v1/data/crypto/spot/ohlcv', 'entity=SOL-USDC&source=okx')).toBeUndefined();
    expect(check('replay', '/v1/reference_price', 'entity=ETH-USD')).toMatchObject({ path: 'query.entity' });
  });

  it('refuses under live a market the named venue does not list, naming the venues that do', () => {
    expect(check('live', '/v1/data/crypto/spot/ohlcv', 'entity=BTC-USD&source=binance')).toMatchObject({
      path: 'query.entity',
      message: expect.stringMatching(/BTC-USD is listed by coinbase, kraken, bitstamp/),
    });
  });
});

describe("the gateway's documents follow the data service's INGEST_MODE", () => {
  const entityEnum = (mode: 'live' | 'replay') => {
    const doc = openApiDocument(catalogFor(mode)) as unknown as {
      paths: Record<string, { get: { parameters: { name: string; schema: { enum?: string[] } }[] } }>;
    };
    return doc.paths['/v1/data/crypto/spot/reference_price']!.get.parameters.find((p) => p.name === 'entity')!
      .schema.enum;
  };

  it('offers ETH-USD in /openapi.json under live only', () => {
    expect(entityEnum('live')).toContain('ETH-USD');
    expect(entityEnum('replay')).toEqual(['BTC-USD']);
  });
});
