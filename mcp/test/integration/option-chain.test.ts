import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startToolBed, type ToolBed } from '../support/tool-bed.js';

/** A chain as the data API answers it (its envelope, two rows of the recorded Deribit chain). */
const CHAIN = {
  data: {
    underlying: 'BTC',
    underlying_px: 91_210,
    options: [
      {
        instrument: 'BTC-26JUN20-9000-P',
        expiry: '2026-12-25T08:00:00.000Z',
        strike: 90_250,
        option_type: 'put',
      },
    ],
  },
  meta: { as_of: '2026-11-25T22:00:00.000Z', venues: ['deribit'], staleness_ms: 1000, confidence: 0.5 },
  provenance: { sources: [], method: 'Deribit marks', excluded: [] },
};

/** option_chain passes its row filters on to the data API (crypto/options/chain filters them). */
describe('option_chain', () => {
  let bed: ToolBed;
  let client: ToolBed['client'];
  let asked: URL[];

  beforeAll(async () => {
    bed = await startToolBed(CHAIN, 'option_chain');
    ({ client, asked } = bed);
  });
  afterAll(async () => bed?.close());

  it('offers option_type and expiry in its input schema', async () => {
    const { tools } = await client.listTools();
    const props = tools.find((t) => t.name === 'option_chain')!.inputSchema.properties as Record<
      string,
      { enum?: string[]; pattern?: string; description?: string }
    >;
    expect(props.option_type!.enum).toEqual(['call', 'put']);
    expect(props.expiry).toBeDefined();
    expect(props.expiry!.description).toMatch(/YYYY-MM-DD/);
  });

  it('passes option_type and expiry on to crypto/options/chain', async () => {
    asked.length = 0;
    const r = (await client.callTool({
      name: 'option_chain',
      arguments: { underlying: 'BTC', option_type: 'put', expiry: '2026-12-25' },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]!.pathname).toBe('/v1/data/crypto/options/chain');
    expect(Object.fromEntries(asked[0]!.searchParams)).toEqual({
      entity: 'BTC',
      option_type: 'put',
      expiry: '2026-12-25',
    });
    expect((r.structuredContent as { data: typeof CHAIN.data }).data.options).toHaveLength(1);
  });

  it('sends neither filter when none is asked for', async () => {
    asked.length = 0;
    await client.callTool({ name: 'option_chain', arguments: { underlying: 'BTC' } });
    expect(Object.fromEntries(asked[0]!.searchParams)).toEqual({ entity: 'BTC' });
  });

  it('refuses an expiry that is not a date, without calling the API', async () => {
    asked.length = 0;
    for (const expiry of ['26JUN20', '2026-02-30', '2026-12-25T08:00:00Z']) {
      const r = (await client.callTool({
        name: 'option_chain',
        arguments: { underlying: 'BTC', expiry },
      })) as CallToolResult;
      expect([expiry, r.isError]).toEqual([expiry, true]);
    }
    expect(asked).toHaveLength(0);
  });
});
