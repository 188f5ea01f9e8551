import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  CATALOG,
  PLANS,
  INGEST_MODES,
  LIVE_OPTION_UNDERLYINGS,
  LIVE_SPOT_MARKETS,
  catalogFor,
} from '@meridian/contracts';
import { cursor, maxResponseTokens } from '../../src/domain/arguments.js';
import {
  CATEGORIES,
  INTERVALS,
  METRICS,
  OPTION_TYPES,
  PRODUCTS,
  REFERENCE_SYMBOLS,
  SPOT_SYMBOLS,
  SPOT_VENUES,
  SYMBOLS,
  UNDERLYINGS,
  VENUES,
} from '../../src/domain/catalog-enums.js';
import { callerKey } from '../../src/domain/credentials.js';
import { parseStdioConfig } from '../../src/config.js';

const sortedUnique = (list: readonly string[]) => expect([...new Set(list)].sort()).toEqual(list);

describe('the enumerations of the tool arguments', () => {
  it('are generated from the catalogue, sorted and without duplicates', () => {
    for (const list of [
      CATEGORIES,
      PRODUCTS,
      METRICS,
      SYMBOLS,
      VENUES,
      SPOT_SYMBOLS,
      SPOT_VENUES,
      UNDERLYINGS,
    ])
      sortedUnique(list);
    expect(CATEGORIES).toEqual([...new Set(CATALOG.map((p) => p.category))].sort());
    // Every mode's venues: the data service answers in its own mode (catalogFor(INGEST_MODE)).
    const everyMode = INGEST_MODES.flatMap((m) => catalogFor(m).products);
    expect(VENUES).toEqual([...new Set(everyMode.flatMap((p) => p.sources))].sort());
    expect(VENUES).toContain('okx');
    expect(INTERVALS).toEqual(['1s', '1m', '5m', '15m', '30m', '1h', '4h', '1d']);
    expect(OPTION_TYPES).toEqual(['call', 'put']);
  });

  it('offer only live metrics to read', () => {
    const live = new Set(
      CATALOG.flatMap((p) => p.metrics.filter((m) => m.status === 'live').map((m) => m.metric)),
    );
    expect(new Set(METRICS)).toEqual(live);
  });

  it('narrow the crypto tools to their products', () => {
    const spot = CATALOG.find((p) => p.category === 'crypto' && p.product === 'spot')!;
    const options = CATALOG.find((p) => p.category === 'crypto' && p.product === 'options')!;
    // The recorded markets (replay) and the live ones together.
    expect(SPOT_SYMBOLS).toEqual([...new Set([...spot.entities, ...LIVE_SPOT_MARKETS])].sort());
    expect(REFERENCE_SYMBOLS).toContain('ETH-USD');
    expect(UNDERLYINGS).toEqual([...new Set([...options.entities, ...LIVE_OPTION_UNDERLYINGS])].sort());
    for (const s of REFERENCE_SYMBOLS) expect(SYMBOLS).toContain(s);
  });

  it('refuse a value the catalogue does not name', () => {
    expect(z.enum(CATEGORIES).safeParse('crypto').success).toBe(true);
    expect(z.enum(CATEGORIES).safeParse('gossip').success).toBe(false);
    expect(z.enum(INTERVALS).safeParse('2m').success).toBe(false);
    expect(z.enum(PLANS).safeParse('pro').success).toBe(true);
  });
});

describe('max_response_tokens and cursor', () => {
  it('default the budget to 4000 and keep it within the data API bounds, whole numbers only', () => {
    expect(maxResponseTokens.parse(undefined)).toBe(4000);
    expect(maxResponseTokens.parse(1000)).toBe(1000);
    expect(maxResponseTokens.parse(100_000)).toBe(100_000);
    for (const bad of [200, 999, 100_001, 1000.5, '1000'])
      expect(maxResponseTokens.safeParse(bad).success).toBe(false);
  });

  it('take an optional, non-empty, bounded cursor', () => {
    expect(cursor.parse(undefined)).toBeUndefined();
    expect(cursor.safeParse('').success).toBe(false);
    expect(cursor.safeParse('x'.repeat(2049)).success).toBe(false);
  });
});

describe("the caller's key on an MCP request", () => {
  it('is X-API-Key, else a Bearer token, trimmed', () => {
    expect(callerKey({ 'x-api-key': ' mk_a ', authorization: 'Bearer mk_b' })).toBe('mk_a');
    expect(callerKey({ authorization: 'bearer mk_b' })).toBe('mk_b');
    expect(callerKey({ 'x-api-key': ['mk_c', 'mk_d'] })).toBe('mk_c');
  });

  it('is absent without either, or with another scheme', () => {
    expect(callerKey({})).toBeUndefined();
    expect(callerKey({ authorization: 'Basic dTpw' })).toBeUndefined();
    expect(callerKey({ 'x-api-key': '  ' })).toBeUndefined();
  });
});

describe('the stdio command line', () => {
  it('takes --key and --api-url, inline or apart, after an optional mcp and --', () => {
    expect(
      parseStdioConfig(['mcp', '--', '--key', 'mk_a', '--api-url=http://localhost:8080'], {}),
    ).toMatchObject({
      key: 'mk_a',
      apiUrl: 'http://localhost:8080',
      LOG_LEVEL: 'warn',
    });
  });

  it('falls back to MERIDIAN_API_KEY and MERIDIAN_API_URL, then the public API', () => {
    expect(parseStdioConfig([], { MERIDIAN_API_KEY: 'mk_env' })).toMatchObject({
      key: 'mk_env',
      apiUrl: 'https://api.meridian.example',
    });
    expect(parseStdioConfig(['--key=mk_arg'], { MERIDIAN_API_KEY: 'mk_env' }).key).toBe('mk_arg');
  });

  it('refuses an unknown argument, a missing value and a bad URL', () => {
    expect(() => parseStdioConfig(['--token', 'x'], {})).toThrow(/unknown argument --token/);
    expect(() => parseStdioConfig(['--key'], {})).toThrow(/--key needs a value/);
    expect(() => parseStdioConfig(['--api-url', 'not a url'], {})).toThrow(/invalid configuration/);
  });
});
