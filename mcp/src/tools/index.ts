import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerBrowseCatalog } from './browse-catalog.js';
import type { ToolContext } from './context.js';
import { registerGetMetric } from './get-metric.js';
import { registerOhlcv } from './ohlcv.js';
import { registerOptionChain } from './option-chain.js';
import { registerRecentTrades } from './recent-trades.js';
import { registerReferencePrice } from './reference-price.js';
import { registerResources } from './resources.js';

/** The agent tools of data-api-interface 4.6 and the reference resources. */
export function registerAll(server: McpServer, ctx: ToolContext): void {
  registerBrowseCatalog(server, ctx);
  registerGetMetric(server, ctx);
  registerReferencePrice(server, ctx);
  registerOhlcv(server, ctx);
  registerRecentTrades(server, ctx);
  registerOptionChain(server, ctx);
  registerResources(server, ctx.served);
}
