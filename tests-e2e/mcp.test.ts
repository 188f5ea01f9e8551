import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createNatsBus, newEvent, type Bus } from '@meridian/bus';
import { EVENTS, STREAMS } from '@meridian/contracts';
import { freePort, startServiceProcess, startSmtp, type ServiceProcess } from '@meridian/test-peers';
import { createKey, signedInAccount } from './src/accounts.js';
import { callUntilServed, structured } from './src/mcp-tools.js';
import { startSystem, type System } from './src/system.js';

const TOOLS = ['browse_catalog', 'get_metric', 'reference_price', 'ohlcv', 'recent_trades', 'option_chain'];

describe('the MCP server through the gateway, with the SDK client over Streamable HTTP and stdio', () => {
  let system: System;
  let mcp: ServiceProcess;
  let bus: Bus;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let proKey: string;
  let freeKey: string;

  async function httpClient(key?: string): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${system.gatewayUrl}/mcp`), { requestInit: { headers } }),
    );
    return client;
  }

  beforeAll(async () => {
    smtp = await startSmtp();
    const mcpPort = await freePort();
    system = await startSystem('e2e_mcp', { SMTP_URL: smtp.url, MCP_URL: `http://127.0.0.1:${mcpPort}` });
    mcp = await startServiceProcess('mcp/src/main.ts', {
      ...system.env,
      PORT: String(mcpPort),
      MERIDIAN_API_URL: system.gatewayUrl,
    });
    bus = await createNatsBus({
      url: system.env.NATS_URL!,
      name: 'e2e-mcp',
      namespace: system.env.BUS_NAMESPACE,
    });
    const pro = await signedInAccount(system, smtp, 'mcp-pro');
    proKey = (await createKey(system, pro.session)).key;
    freeKey = (await createKey(system, (await signedInAccount(system, smtp, 'mcp-free')).session)).key;
    const me = (await (
      await fetch(`${system.gatewayUrl}/v1/account`, { headers: { authorization: `Bearer ${pro.session}` } })
    ).json()) as { data: { account_id: string } };
    await bus.ensureStream(STREAMS.billing);
    await bus.publish(
      newEvent('billing', EVENTS.billingPlanChanged, {
        account_id: me.data.account_id,
        plan: 'pro',
        changed_at: new Date().toISOString(),
      }),
    );
    // The gateway learns the plan from identity's event; wait until the pro key reads a pro metric.
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${system.gatewayUrl}/v1/data/crypto/options/chain?entity=BTC`, {
        headers: { 'x-api-key': proKey },
      });
      if (res.status !== 403) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 180_000);

  afterAll(async () => {
    await mcp?.close();
    await bus?.close();
    await system?.stop();
    await smtp?.close();
  });

  it('lists the six tools with enumerated arguments, an output schema and read-only annotations', async () => {
    const client = await httpClient(proKey);
    try {
      expect(client.getServerVersion()?.name).toBe('meridian-data');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS);
      for (const tool of tools) {
        expect(tool.annotations).toMatchObject({
          readOnlyHint: true,
          idempotentHint: true,
          openWorldHint: true,
        });
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.inputSchema.properties).toHaveProperty('max_response_tokens');
        expect(tool.inputSchema.properties).toHaveProperty('cursor');
      }
      const getMetric = tools.find((t) => t.name === 'get_metric')!.inputSchema.properties as Record<
        string,
        { enum?: string[] }
      >;
      expect(getMetric.category!.enum).toContain('crypto');
      expect(getMetric.metric!.enum).toContain('reference_price');
      expect(getMetric.interval!.enum).toEqual(['1s', '1m', '5m', '15m', '30m', '1h', '4h', '1d']);
      const chain = tools.find((t) => t.name === 'option_chain')!.inputSchema.properties as Record<
        string,
        { enum?: string[] }
      >;
      expect(chain.option_type!.enum).toEqual(['call', 'put']);
    } finally {
      await client.close();
    }
  });

  it('offers in its enumerations exactly what this deployment serves: every value answers', async () => {
    const client = await httpClient(proKey);
    try {
      const { tools } = await client.listTools();
      const enumOf = (tool: string, argument: string) =>
        (tools.find((t) => t.name === tool)!.inputSchema.properties as Record<string, { enum?: string[] }>)[
          argument
        ]!.enum!;
      const served = (await (await fetch(`${system.gatewayUrl}/v1/catalog`)).json()) as {
        data: {
          categories: Array<{
            category: string;
            products: Array<{
              product: string;
              entities: string[];
              venue_entities?: Record<string, string[]>;
              metrics: Array<{ metric: string; combined_entities?: string[] }>;
            }>;
          }>;
        };
      };
      const spot = served.data.categories
        .find((c) => c.category === 'crypto')!
        .products.find((p) => p.product === 'spot')!;
      // The running catalogue's markets, not every mode's (the live-only pairs would not answer).
      expect(enumOf('ohlcv', 'symbol')).toEqual([...spot.entities].sort());
      /** A market read without a source where the metric combines it, else from a venue listing it. */
      const market = (metric: string, symbol: string): Record<string, unknown> => {
        const combined = spot.metrics.find((m) => m.metric === metric)?.combined_entities;
        if (!combined || combined.includes(symbol)) return { symbol };
        const venue = Object.entries(spot.venue_entities ?? {}).find(([, listed]) => listed.includes(symbol));
        return { symbol, source: venue?.[0] };
      };
      const calls: Array<[string, Record<string, unknown>]> = [
        ...enumOf('reference_price', 'symbol').map((symbol): [string, Record<string, unknown>] => [
          'reference_price',
          { symbol },
        ]),
        ...enumOf('ohlcv', 'symbol').map((symbol): [string, Record<string, unknown>] => [
          'ohlcv',
          { ...market('ohlcv', symbol), interval: '1h', max_response_tokens: 1000 },
        ]),
        ...enumOf('recent_trades', 'symbol').map((symbol): [string, Record<string, unknown>] => [
          'recent_trades',
          { ...market('trades', symbol), max_response_tokens: 1000 },
        ]),
        ...enumOf('option_chain', 'underlying').map((underlying): [string, Record<string, unknown>] => [
          'option_chain',
          { underlying, max_response_tokens: 1000 },
        ]),
      ];
      for (const [name, args] of calls) {
        const r = await callUntilServed(client, name, args);
        expect({ name, args, error: r.isError ? structured(r) : null }).toEqual({ name, args, error: null });
      }
    } finally {
      await client.close();
    }
  }, 180_000);

  it('calls each tool: structured envelope, its text copy, and the paging fields', async () => {
    const client = await httpClient(proKey);
    try {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['browse_catalog', { category: 'crypto' }],
        ['get_metric', { category: 'crypto', product: 'spot', metric: 'range_24h', entity: 'BTC-USD' }],
        ['reference_price', { symbol: 'BTC-USD' }],
        ['ohlcv', { symbol: 'BTC-USD', interval: '1h' }],
        ['recent_trades', { symbol: 'BTC-USD' }],
        ['option_chain', { underlying: 'BTC', option_type: 'put' }],
      ];
      for (const [name, args] of calls) {
        const r = await callUntilServed(client, name, args);
        // recent_trades answers offline too: the replay derives prints from its recorded 1m bars.
        expect([name, r.isError ?? false]).toEqual([name, false]);
        const body = structured(r);
        expect(body.meta).toMatchObject({ truncated: expect.any(Boolean), hint: expect.any(String) });
        expect(body.meta).toHaveProperty('next_cursor');
        expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(body);
      }
      const puts = structured(
        await client.callTool({ name: 'option_chain', arguments: { underlying: 'BTC', option_type: 'put' } }),
      );
      const options = (puts.data as { options: { option_type: string }[] }).options;
      expect(options.length).toBeGreaterThan(0);
      expect(options.every((o) => o.option_type === 'put')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('truncates to whole rows and continues with the cursor', async () => {
    const client = await httpClient(proKey);
    try {
      const first = structured(
        await client.callTool({ name: 'browse_catalog', arguments: { max_response_tokens: 1000 } }),
      );
      expect(first.meta).toMatchObject({ truncated: true, next_cursor: expect.any(String) });
      expect(first.meta!.hint).toMatch(/cursor/);
      expect(JSON.stringify(first).length).toBeLessThanOrEqual(1000 * 4);
      const firstRows = (first.data as { metrics: { path: string }[] }).metrics.map((m) => m.path);
      const second = structured(
        await client.callTool({
          name: 'browse_catalog',
          arguments: { max_response_tokens: 1000, cursor: first.meta!.next_cursor },
        }),
      );
      const secondRows = (second.data as { metrics: { path: string }[] }).metrics.map((m) => m.path);
      expect(secondRows.length).toBeGreaterThan(0);
      expect(secondRows.some((p) => firstRows.includes(p))).toBe(false);

      // A series page cut by the data service, continued with its cursor.
      const bars = await callUntilServed(client, 'ohlcv', {
        symbol: 'BTC-USD',
        interval: '1m',
        max_response_tokens: 1000,
      });
      const page = structured(bars);
      expect(page.meta).toMatchObject({ truncated: true, next_cursor: expect.any(String) });
      const next = structured(
        await client.callTool({
          name: 'ohlcv',
          arguments: {
            symbol: 'BTC-USD',
            interval: '1m',
            max_response_tokens: 1000,
            cursor: page.meta!.next_cursor,
          },
        }),
      );
      expect(next.meta).toMatchObject({ truncated: expect.any(Boolean) });
      expect(next.data).not.toEqual(page.data);

      // A cursor of another question is refused, typed.
      const foreign = await client.callTool({
        name: 'browse_catalog',
        arguments: { category: 'fx', cursor: first.meta!.next_cursor },
      });
      expect(foreign.isError).toBe(true);
      expect(structured(foreign).error_category).toBe('invalid_cursor');
    } finally {
      await client.close();
    }
  });

  it('gives typed, actionable tool errors for an under-plan, a missing and an invalid key', async () => {
    const free = await httpClient(freeKey);
    try {
      const gated = await free.callTool({ name: 'option_chain', arguments: { underlying: 'BTC' } });
      expect(gated.isError).toBe(true);
      expect(structured(gated)).toMatchObject({
        error_category: 'tier_forbidden',
        status: 403,
        detail: expect.stringMatching(/crypto\/options\/chain.*pro/),
        what_to_do: expect.stringMatching(/[Uu]pgrade/),
      });
    } finally {
      await free.close();
    }
    const keyless = await httpClient();
    try {
      const r = await keyless.callTool({ name: 'reference_price', arguments: { symbol: 'BTC-USD' } });
      expect(r.isError).toBe(true);
      expect(structured(r)).toMatchObject({ error_category: 'api_key_required', status: 402 });
      expect(structured(r).what_to_do).toMatch(/Authorization: Bearer/);
      // The catalogue needs no key.
      const catalog = await keyless.callTool({ name: 'browse_catalog', arguments: {} });
      expect(catalog.isError ?? false).toBe(false);
    } finally {
      await keyless.close();
    }
    const invalid = await httpClient('mk_live_notakey');
    try {
      const r = await invalid.callTool({ name: 'reference_price', arguments: { symbol: 'BTC-USD' } });
      expect(structured(r)).toMatchObject({ error_category: 'unauthorized', status: 401 });
    } finally {
      await invalid.close();
    }
  });

  it('serves the reference resources, marked cacheable', async () => {
    const client = await httpClient();
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([
        'meridian://catalog',
        'meridian://symbols',
        'meridian://venues',
      ]);
      for (const r of resources) {
        expect(r.annotations?.lastModified).toEqual(expect.any(String));
        expect(r._meta).toMatchObject({ 'meridian/cacheable': true });
      }
      const venues = await client.readResource({ uri: 'meridian://venues' });
      const text = (venues.contents[0] as { text: string }).text;
      expect(JSON.parse(text).venues.map((v: { venue: string }) => v.venue)).toContain('binanceus');
    } finally {
      await client.close();
    }
  });

  it('serves the same tools over stdio from the bin, with the key given on the command line', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--conditions=source', '--import', 'tsx', 'mcp/bin/meridian-mcp.js', 'mcp', '--key', freeKey],
      env: { ...(process.env as Record<string, string>), MERIDIAN_API_URL: system.gatewayUrl },
      cwd: new URL('..', import.meta.url).pathname,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
      const price = await callUntilServed(client, 'reference_price', { symbol: 'BTC-USD' });
      expect(price.isError ?? false).toBe(false);
      expect((structured(price).data as { symbol: string }).symbol).toBe('BTC-USD');
      const gated = await client.callTool({ name: 'option_chain', arguments: { underlying: 'BTC' } });
      expect(structured(gated)).toMatchObject({ error_category: 'tier_forbidden', status: 403 });
    } finally {
      await client.close();
    }
  });
});
