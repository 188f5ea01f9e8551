import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CLIENT_ADDRESS_HEADER, formatApiKey } from '@meridian/contracts';
import { assertionKey, signClientAddress } from '@meridian/http-kit';
import { TEST_INTERNAL_AUTH_SECRET } from '@meridian/http-kit/testing';
import { freePort, startServiceProcess, type ServiceProcess } from '@meridian/test-peers';
import { start as startGateway } from '../../src/main.js';
import { startIdentityPeer, type IdentityPeer } from './identity-peer.js';

const DATA = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
const base62 = (n: number) =>
  randomBytes(n)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, 'x')
    .slice(0, n);
/** A key of identity's format with a valid checksum (the checksum is public) that was never issued. */
const madeUpKey = () => formatApiKey(base62(12), base62(32));

interface Answer {
  status: number;
  body: Record<string, any>;
}

/** A request to the gateway from a loopback address of the test's choice (every 127/8 is this host). */
function from(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: init.method ?? 'GET', headers: init.headers, localAddress },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * The MCP edge calls the gateway from its own address: the gateway's budget of failed key checks
 * per address must still be kept per MCP client, from an address the edge vouches for with the
 * internal secret, and a header anyone could send must not move it.
 */
describe('gateway: the client address the MCP edge vouches for', () => {
  let peer: IdentityPeer;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let mcp: ServiceProcess;
  let victimKey: string;
  let directKey: string;

  beforeAll(async () => {
    peer = await startIdentityPeer('gw_mcp_addr');
    const mcpPort = await freePort();
    // TRUST_PROXY none (the default): the gateway believes no X-Forwarded-For, the edge's included.
    gateway = await startGateway({ ...peer.env(), MCP_URL: `http://127.0.0.1:${mcpPort}` });
    mcp = await startServiceProcess('mcp/src/main.ts', {
      PORT: String(mcpPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      MERIDIAN_API_URL: gateway.url,
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
      // The gateway calls the edge from 127.0.0.1: its X-Forwarded-For names the MCP client.
      CLIENT_ADDRESS_PROXY: '127.0.0.1',
    });
    const cookie = await peer.signIn(gateway.url, `mcp-${peer.namespace}@example.com`);
    victimKey = await peer.newKey(gateway.url, cookie);
    directKey = await peer.newKey(gateway.url, cookie);
  }, 90_000);

  afterAll(async () => {
    await mcp?.close();
    await gateway?.close();
    await peer?.close();
  });

  /** reference_price through the gateway's /mcp, with `key`, from `address`: the tool's structured answer. */
  const tool = async (address: string, key: string) => {
    const res = await from(address, `${gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': key,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'reference_price', arguments: { symbol: 'BTC-USD' } },
      }),
    });
    expect(res.status).toBe(200);
    return res.body.result as { isError?: boolean; structuredContent: Record<string, any> };
  };

  it('spends only the made-up keys caller’s budget: other MCP users and the edge’s own address keep theirs', async () => {
    const attacker = '127.0.0.2';
    // 35 calls with made-up keys spend the budget (30, refilled by one every 2 s) of their address.
    const categories: string[] = [];
    for (let i = 0; i < 35 || (i < 60 && categories.at(-1) !== 'rate_limit'); i++)
      categories.push((await tool(attacker, madeUpKey())).structuredContent.error_category);
    expect(categories.at(-1)).toBe('rate_limit');
    expect(categories.filter((c) => c === 'unauthorized').length).toBeGreaterThanOrEqual(30);

    // A vouching header without the internal secret's signature is ignored: still the attacker's budget.
    const wrongKey = assertionKey('x'.repeat(40));
    const onData = { address: '127.0.0.9', method: 'GET', target: DATA };
    for (const header of ['127.0.0.9', signClientAddress(onData, wrongKey)]) {
      const direct = await from(attacker, `${gateway.url}${DATA}`, {
        headers: { 'x-api-key': madeUpKey(), [CLIENT_ADDRESS_HEADER]: header },
      });
      expect(direct.status).toBe(429);
    }

    const victim = await tool('127.0.0.3', victimKey);
    expect(victim.isError ?? false).toBe(false);
    expect(victim.structuredContent.data).toMatchObject({ symbol: 'BTC-USD' });
    // A direct caller from the edge's own address, with a key this gateway has not cached yet.
    const direct = await from('127.0.0.1', `${gateway.url}${DATA}`, { headers: { 'x-api-key': directKey } });
    expect(direct.status).toBe(200);
  });

  it('believes a valid assertion once, on the request it was signed for: a replay or one moved onto another request spends the sender’s budget', async () => {
    const attacker = '127.0.0.4';
    const key = assertionKey(TEST_INTERNAL_AUTH_SECRET);
    const direct = (header: string, path = DATA) =>
      from(attacker, `${gateway.url}${path}`, {
        headers: { 'x-api-key': madeUpKey(), [CLIENT_ADDRESS_HEADER]: header },
      });
    // The attacker's own budget of failed key checks, spent.
    let status = 0;
    for (let i = 0; i < 60 && status !== 429; i++) status = (await direct('none')).status;
    expect(status).toBe(429);
    // A valid assertion, as the edge sent it for one call of 127.0.0.10: believed once (401, that address's budget).
    const signed = signClientAddress({ address: '127.0.0.10', method: 'GET', target: DATA }, key);
    expect((await direct(signed)).status).toBe(401);
    // Replayed within its minute: the attacker's budget again.
    expect((await direct(signed)).status).toBe(429);
    // Signed for another request (another target, another method): not believed here.
    const other = '/v1/data/crypto/spot/reference_price?entity=ETH-USD';
    const moved = [
      signClientAddress({ address: '127.0.0.11', method: 'GET', target: other }, key),
      signClientAddress({ address: '127.0.0.11', method: 'POST', target: DATA }, key),
    ];
    for (const header of moved) expect((await direct(header)).status).toBe(429);
  });
});
