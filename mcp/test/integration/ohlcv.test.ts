import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startToolBed, type ToolBed } from '../support/tool-bed.js';

/** Bars as the data API answers them (its envelope, one combined 1m bar). */
const BARS = {
  data: [{ ts: '2026-11-25T22:00:00.000Z', open: 1, high: 2, low: 1, close: 2, volume: 3 }],
  meta: {
    as_of: '2026-11-25T22:00:00.000Z',
    venues: ['binanceus'],
    staleness_ms: 1000,
    confidence: 0.9,
    has_more: false,
    next_cursor: null,
    truncated: false,
    returned: 1,
  },
  provenance: { sources: [], method: 'bars' },
};

/**
 * The ohlcv tool offers each pair with its venues, and what it offers answers: a venue's own market
 * (BTC-USDT, BTC-USDC of the replay catalogue) is refused without a source, in words naming its
 * venues, before any call; with a venue listing it the call goes through.
 */
describe('ohlcv', () => {
  let bed: ToolBed;
  let client: ToolBed['client'];
  let asked: URL[];

  beforeAll(async () => {
    bed = await startToolBed(BARS, 'ohlcv');
    ({ client, asked } = bed);
  });
  afterAll(async () => bed?.close());

  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'ohlcv', arguments: args })) as CallToolResult;

  it('lists each pair of its enumeration with the venues that answer it', async () => {
    const { tools } = await client.listTools();
    const props = tools.find((t) => t.name === 'ohlcv')!.inputSchema.properties as Record<
      string,
      { enum?: string[]; description?: string }
    >;
    expect(props.symbol!.enum).toEqual(['BTC-USD', 'BTC-USDC', 'BTC-USDT']);
    expect(props.symbol!.description).toContain(
      'BTC-USD: without source (combined across venues), or source binanceus',
    );
    expect(props.symbol!.description).toContain('BTC-USDC: needs source binanceus or kraken');
    expect(props.symbol!.description).toContain('BTC-USDT: needs source binanceus');
    expect(props.source!.enum).toEqual(['binanceus', 'kraken']);
  });

  it('refuses a venue market without a source, naming its venues, without calling the API', async () => {
    asked.length = 0;
    const r = await call({ symbol: 'BTC-USDT' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({
      error_category: 'invalid_argument',
      what_to_do: expect.stringContaining('source binanceus') as unknown,
    });
    const kraken = await call({ symbol: 'BTC-USDT', source: 'kraken' });
    expect(kraken.structuredContent).toMatchObject({ detail: 'kraken does not list BTC-USDT.' });
    expect(asked).toHaveLength(0);
  });

  it('answers every pair with the source its description names', async () => {
    asked.length = 0;
    for (const [symbol, source] of [
      ['BTC-USD', undefined],
      ['BTC-USDT', 'binanceus'],
      ['BTC-USDC', 'kraken'],
    ] as const) {
      const r = await call({ symbol, ...(source ? { source } : {}), interval: '1h' });
      expect([symbol, r.isError ?? false]).toEqual([symbol, false]);
    }
    expect(asked.map((u) => Object.fromEntries(u.searchParams))).toEqual([
      { entity: 'BTC-USD', interval: '1h', max_response_tokens: '4000' },
      { entity: 'BTC-USDT', source: 'binanceus', interval: '1h', max_response_tokens: '4000' },
      { entity: 'BTC-USDC', source: 'kraken', interval: '1h', max_response_tokens: '4000' },
    ]);
  });
});
