import type { Express, Request, Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createHttpApp, finishApp, signClientAddress } from '@meridian/http-kit';
import { probeRouter } from '@meridian/runtime';
import type { CallerCredentials } from './adapters/data-api.js';
import type { Served } from './adapters/served-catalog.js';
import type { Deps } from './deps.js';
import { clientAddressOf } from './domain/client-address.js';
import { callerKey } from './domain/credentials.js';
import { registerAll } from './tools/index.js';

export type { Deps } from './deps.js';

export const SERVER_INFO = { name: 'meridian-data', title: 'Meridian data', version: '1.0.0' };

const INSTRUCTIONS =
  'Reference data with provenance (crypto, FX, stocks, commodities, macro, weather, sports, medical, novelty feeds). ' +
  'Start with browse_catalog (or the catalog resource) to find a metric and the plan it needs, then read it with get_metric ' +
  'or the crypto tools. Every tool takes max_response_tokens; when meta.truncated is true, call again with cursor=meta.next_cursor. ' +
  'Errors are tool results with error_category, status, detail and what_to_do.';

/**
 * One MCP server for one caller: the tools call the data API with that caller's key, their
 * enumerations are those of `served` (deps.catalog.current()).
 */
export function createMcpServer(deps: Deps, caller: CallerCredentials, served: Served): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  registerAll(server, { api: deps.api, caller, cursorSecret: deps.cursorSecret, served });
  return server;
}

/** The JSON-RPC error of an endpoint that cannot offer its tools: the catalogue could not be read. */
function unavailable(res: Response): void {
  res
    .status(503)
    .set('retry-after', '5')
    .json({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'The data API catalogue could not be read; try again shortly.' },
      id: null,
    });
}

/** The JSON-RPC error of a request the stateless endpoint does not take (GET stream, DELETE session). */
function notAllowed(res: Response): void {
  res
    .status(405)
    .set('allow', 'POST')
    .json({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, POST only.' },
      id: null,
    });
}

/**
 * The Streamable HTTP edge, stateless: each POST /mcp gets a server and a transport of its own,
 * bound to the API key of that request (`Authorization: Bearer` or `X-API-Key`), so nothing of one
 * caller outlives its request or reaches another's.
 */
export function createApp(deps: Deps): Express {
  const app = createHttpApp({
    logger: deps.logger,
    metrics: deps.metrics,
    jsonLimit: '1mb',
    trustProxy: deps.trustProxy,
  });
  app.use(probeRouter('mcp', deps.metrics, async () => undefined));
  app.post('/mcp', async (req: Request, res: Response) => {
    const address = clientAddressOf(
      req.socket.remoteAddress,
      req.headers['x-forwarded-for'],
      deps.clientAddressProxies ?? [],
    );
    const key = deps.clientAddressKey;
    const caller: CallerCredentials = {
      key: callerKey(req.headers),
      // The socket's peer, or the client the configured proxy names; vouched for per call: see README.
      forwardedFor: address,
      ...(address && key
        ? { vouch: (method: string, target: string) => signClientAddress({ address, method, target }, key) }
        : {}),
    };
    const served = await deps.catalog.current().catch((err: unknown) => {
      deps.logger.warn({ err }, 'catalogue unreadable');
      return undefined;
    });
    if (!served) return unavailable(res);
    const server = createMcpServer(deps, caller, served);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', (_req, res) => notAllowed(res));
  app.delete('/mcp', (_req, res) => notAllowed(res));
  return finishApp(app);
}
