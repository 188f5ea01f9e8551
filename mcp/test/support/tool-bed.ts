import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createLogger, createMetrics } from '@meridian/observability';
import { DataApi } from '../../src/adapters/data-api.js';
import { ServedCatalog } from '../../src/adapters/served-catalog.js';
import { createMcpServer } from '../../src/app.js';
import { catalogAnswer } from './served.js';

export interface ToolBed {
  client: Client;
  /** Every data call the tools made, in order (the catalogue's reads left out). */
  asked: URL[];
  close(): Promise<void>;
}

/**
 * The MCP server's tools over an in-memory transport, in front of a data API on loopback that
 * serves the replay catalogue and answers every data call with `answer`.
 */
export async function startToolBed(answer: object, name: string): Promise<ToolBed> {
  const asked: URL[] = [];
  const api = createServer((req, res) => {
    const url = new URL(req.url!, 'http://127.0.0.1');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/v1/catalog') return res.end(JSON.stringify(catalogAnswer('replay')));
    asked.push(url);
    res.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const { port } = api.address() as AddressInfo;
  const dataApi = new DataApi({
    baseUrl: `http://127.0.0.1:${port}`,
    timeoutMs: 5000,
    userAgent: 'mcp-test',
  });
  const deps = {
    logger: createLogger('mcp-test', { level: 'silent' }),
    metrics: createMetrics('mcp', { defaultMetrics: false }),
    api: dataApi,
    cursorSecret: 's'.repeat(32),
    catalog: new ServedCatalog(dataApi, 60_000),
  };
  const server = createMcpServer(deps, { key: `mk_test_${name}` }, await deps.catalog.current());
  const [mine, theirs] = InMemoryTransport.createLinkedPair();
  await server.connect(theirs);
  const client = new Client({ name: `${name}-test`, version: '1.0.0' });
  await client.connect(mine);
  return {
    client,
    asked,
    close: async () => {
      await client.close();
      await new Promise((resolve) => api.close(resolve));
    },
  };
}
