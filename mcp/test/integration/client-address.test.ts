import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLIENT_ADDRESS_HEADER } from '@meridian/contracts';
import { assertionKey, startServer, verifyClientAddress } from '@meridian/http-kit';
import { createLogger, createMetrics } from '@meridian/observability';
import { DataApi } from '../../src/adapters/data-api.js';
import { ServedCatalog } from '../../src/adapters/served-catalog.js';
import { createApp } from '../../src/app.js';
import { catalogAnswer } from '../support/served.js';

const KEY = assertionKey('mcp-client-address-test-'.repeat(2));
const PRICE = {
  data: { symbol: 'BTC-USD', price: 91_000 },
  meta: { as_of: '2026-12-02T01:00:00.000Z', venues: ['test'], staleness_ms: 0, confidence: 1 },
  provenance: { sources: [], method: 'test', excluded: [] },
};

/** What the gateway stand-in received: each call's target and assertion. */
interface Seen {
  method: string;
  target: string;
  assertion: string | undefined;
}

/** POST /mcp from a loopback address of the test's choice, calling reference_price. */
function callTool(url: string, localAddress: string, forwardedFor?: string): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'reference_price', arguments: { symbol: 'BTC-USD' } },
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-api-key': 'mk_test_client_address',
    ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/mcp`, { method: 'POST', headers, localAddress }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The MCP edge vouches to the gateway for the address of its client: the socket's peer, or what the
 * configured proxy (the gateway, 127.0.0.1 here) wrote; never what a client claims in its own
 * X-Forwarded-For, and each assertion for the one call it rides on.
 */
describe('mcp: the client address vouched for', () => {
  let api: Server;
  let mcp: Awaited<ReturnType<typeof startServer>>;
  const seen: Seen[] = [];

  beforeAll(async () => {
    api = createServer((req, res) => {
      const url = new URL(req.url!, 'http://127.0.0.1');
      const assertion = req.headers[CLIENT_ADDRESS_HEADER];
      res.setHeader('content-type', 'application/json');
      if (url.pathname === '/v1/catalog' && assertion === undefined)
        return res.end(JSON.stringify(catalogAnswer('replay')));
      seen.push({ method: req.method!, target: req.url!, assertion: assertion as string | undefined });
      res.end(JSON.stringify(PRICE));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const dataApi = new DataApi({
      baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
      timeoutMs: 5000,
      userAgent: 'mcp-test',
    });
    const logger = createLogger('mcp-test', { level: 'silent' });
    const app = createApp({
      logger,
      metrics: createMetrics('mcp', { defaultMetrics: false }),
      api: dataApi,
      cursorSecret: 's'.repeat(32),
      catalog: new ServedCatalog(dataApi, 60_000),
      clientAddressProxies: ['127.0.0.1'],
      clientAddressKey: KEY,
    });
    mcp = await startServer(app, { port: 0, host: '127.0.0.1', logger });
  });
  afterAll(async () => {
    await mcp?.close();
    await new Promise((resolve) => api.close(resolve));
  });

  /** The address the last call's assertion vouches for, verified on the call it came with. */
  const vouched = () => {
    const last = seen.at(-1)!;
    return verifyClientAddress(last.assertion, { method: last.method, target: last.target }, KEY)?.address;
  };
  const url = () => `http://127.0.0.1:${mcp.port}`;

  it('vouches for the socket’s peer when a client reaches the edge directly, whatever X-Forwarded-For it sends', async () => {
    expect(await callTool(url(), '127.0.0.2', '203.0.113.9')).toBe(200);
    expect(vouched()).toBe('127.0.0.2');
    expect(await callTool(url(), '127.0.0.2', '203.0.113.9, 127.0.0.1')).toBe(200);
    expect(vouched()).toBe('127.0.0.2');
  });

  it('vouches for the address the configured proxy wrote last, not what the client put before it', async () => {
    expect(await callTool(url(), '127.0.0.1', '203.0.113.9, 198.51.100.7')).toBe(200);
    expect(vouched()).toBe('198.51.100.7');
    expect(await callTool(url(), '127.0.0.1')).toBe(200);
    expect(vouched()).toBe('127.0.0.1');
  });

  it('binds each assertion to its call: it does not verify on another target, and no two share a nonce', async () => {
    await callTool(url(), '127.0.0.1', '198.51.100.7');
    await callTool(url(), '127.0.0.1', '198.51.100.7');
    const [a, b] = seen.slice(-2);
    expect(verifyClientAddress(a!.assertion, { method: 'GET', target: '/v1/catalog' }, KEY)).toBeUndefined();
    expect(a!.assertion!.split(' ')[2]).not.toBe(b!.assertion!.split(' ')[2]);
  });
});
