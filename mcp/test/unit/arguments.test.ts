import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { CATALOG, PLANS, LIVE_OPTION_UNDERLYINGS, LIVE_SPOT_MARKETS, catalogFor } from '@meridian/contracts';
import { cursor, maxResponseTokens } from '../../src/domain/arguments.js';
import { INTERVALS, OPTION_TYPES, toolEnums } from '../../src/domain/catalog-enums.js';
import { servedProducts } from '../../src/domain/served-catalog.js';
import { callerKey } from '../../src/domain/credentials.js';
import { parseStdioConfig } from '../../src/config.js';
import { catalogAnswer } from '../support/served.js';

const sortedUnique = (list: readonly string[]) => expect([...new Set(list)].sort()).toEqual(list);
const replay = toolEnums(servedProducts(catalogAnswer('replay')));
const live = toolEnums(servedProducts(catalogAnswer('live')));

describe('the enumerations of the tool arguments', () => {
  it('are generated from the served catalogue, sorted and without duplicates', () => {
    for (const enums of [replay, live]) for (const list of Object.values(enums)) sortedUnique(list);
    expect(replay.categories).toEqual([...new Set(CATALOG.map((p) => p.category))].sort());
    expect(INTERVALS).toEqual(['1s', '1m', '5m', '15m', '30m', '1h', '4h', '1d']);
    expect(OPTION_TYPES).toEqual(['call', 'put']);
  });

  it('offer only live metrics to read', () => {
    const served = new Set(
      CATALOG.flatMap((p) => p.metrics.filter((m) => m.status === 'live').map((m) => m.metric)),
    );
    expect(new Set(replay.metrics)).toEqual(served);
  });

  it("offer the markets and venues of the deployment's own mode, not every mode's", () => {
    const spot = (mode: 'replay' | 'live') =>
      catalogFor(mode).products.find((p) => p.category === 'crypto' && p.product === 'spot')!;
    expect(replay.spotSymbols).toEqual([...spot('replay').entities].sort());
    expect(replay.spotVenues).toEqual([...spot('replay').sources].sort());
    expect(live.spotSymbols).toEqual([...LIVE_SPOT_MARKETS].sort());
    expect(live.underlyings).toEqual([...LIVE_OPTION_UNDERLYINGS].sort());
    // A live-only market is not offered by a replaying deployment, where it would not answer.
    const liveOnly = live.referenceSymbols.filter((s) => !spot('replay').entities.includes(s));
    expect(liveOnly.length).toBeGreaterThan(0);
    for (const s of liveOnly) expect(replay.referenceSymbols).not.toContain(s);
    for (const s of replay.referenceSymbols) expect(replay.symbols).toContain(s);
  });

  it('refuse a value the catalogue does not name', () => {
    expect(z.enum(replay.categories).safeParse('crypto').success).toBe(true);
    expect(z.enum(replay.categories).safeParse('gossip').success).toBe(false);
    expect(z.enum(INTERVALS).safeParse('2m').success).toBe(false);
    expect(z.enum(PLANS).safeParse('pro').success).toBe(true);
  });

  it('are not made from an answer that is not a catalogue', () => {
    expect(() => servedProducts({ data: { categories: [] } })).toThrow(
      /GET \/v1\/catalog answered no catalogue/,
    );
    expect(() => servedProducts({ error: 'x' })).toThrow(/no catalogue/);
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
