import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createLogger, createMetrics } from '@meridian/observability';
import { DataApi } from './adapters/data-api.js';
import { CATALOG_MAX_AGE_MS, ServedCatalog } from './adapters/served-catalog.js';
import { createMcpServer } from './app.js';
import { parseStdioConfig } from './config.js';
import { SERVICE } from './deps.js';

/**
 * Composition root of the stdio command (`meridian-mcp [mcp] --key <key>`), what an agent host
 * runs from the descriptor's install command: stdout carries the protocol only, logs go to stderr.
 */
export async function runStdio(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Promise<void> {
  const config = parseStdioConfig(argv, env);
  const logger = createLogger(SERVICE, { level: config.LOG_LEVEL, destination: process.stderr });
  const api = new DataApi({
    baseUrl: config.apiUrl,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    userAgent: 'meridian-mcp/1.0 (stdio)',
  });
  const deps = {
    logger,
    metrics: createMetrics(SERVICE, { defaultMetrics: false }),
    api,
    cursorSecret: config.MCP_CURSOR_SECRET ?? randomBytes(32).toString('hex'),
    catalog: new ServedCatalog(api, CATALOG_MAX_AGE_MS),
  };
  // The tools offer what the API serves: without its catalogue there is nothing true to offer.
  const served = await deps.catalog.current();
  const server = createMcpServer(deps, { key: config.key }, served);
  const transport = new StdioServerTransport();
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  transport.onclose = () => void stop();
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await server.connect(transport);
  logger.info({ api: config.apiUrl, key: config.key ? 'given' : 'none' }, 'mcp on stdio');
}
