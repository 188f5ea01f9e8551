import { randomBytes } from 'node:crypto';
import { assertionKey, startServer } from '@meridian/http-kit';
import { createLogger, createMetrics } from '@meridian/observability';
import { isEntrypoint, runMain } from '@meridian/runtime';
import { DataApi } from './adapters/data-api.js';
import { CATALOG_MAX_AGE_MS, ServedCatalog } from './adapters/served-catalog.js';
import { createApp } from './app.js';
import { parseConfig } from './config.js';
import { proxiesOf } from './domain/client-address.js';
import { SERVICE } from './deps.js';

/**
 * Composition root of the Streamable HTTP edge (`POST /mcp`, behind the gateway): the only reader
 * of the environment. Owns no data: every tool is an HTTP call to the public API (MERIDIAN_API_URL).
 */
export async function start(env: Record<string, string | undefined>) {
  const config = parseConfig(env);
  const logger = createLogger(SERVICE, { level: config.LOG_LEVEL });
  const metrics = createMetrics(SERVICE);
  const api = new DataApi({
    baseUrl: config.MERIDIAN_API_URL,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    userAgent: 'meridian-mcp/1.0 (streamable-http)',
  });
  const app = createApp({
    logger,
    metrics,
    api,
    cursorSecret: config.MCP_CURSOR_SECRET ?? randomBytes(32).toString('hex'),
    catalog: new ServedCatalog(api, CATALOG_MAX_AGE_MS),
    trustProxy: config.TRUST_PROXY,
    clientAddressProxies: proxiesOf(config.CLIENT_ADDRESS_PROXY),
    clientAddressKey: assertionKey(config.INTERNAL_AUTH_SECRET),
  });
  const server = await startServer(app, { port: config.PORT, host: config.HOST, logger });
  logger.info({ url: `${server.url}/mcp`, api: config.MERIDIAN_API_URL }, 'mcp listening');
  return { url: server.url, port: server.port, close: () => server.close() };
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
