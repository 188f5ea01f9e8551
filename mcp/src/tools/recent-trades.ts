import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TRADES } from '../domain/catalog-enums.js';
import { cursor, maxResponseTokens } from '../domain/arguments.js';
import { READ_ONLY, envelopeOutput } from './answer.js';
import type { ToolContext } from './context.js';
import { readMetric } from './read-metric.js';
import { scopeOf } from '../domain/scope.js';

export function registerRecentTrades(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'recent_trades',
    {
      title: 'Crypto recent trades',
      description:
        'Normalized taker-aggressor trade prints of a spot market per venue, newest page first (crypto/spot/trades; basic plan). Calls get_metric.',
      inputSchema: {
        symbol: z.enum(ctx.served.enums.spotSymbols).describe('spot market'),
        source: z
          .enum(ctx.served.enums.spotVenues)
          .optional()
          .describe('one venue; omit for every venue listing the market'),
        max_response_tokens: maxResponseTokens,
        cursor,
      },
      outputSchema: envelopeOutput(z.unknown().describe('trade prints, oldest to newest')),
      annotations: { title: 'Crypto recent trades', ...READ_ONLY },
    },
    (args) =>
      readMetric(ctx, {
        target: TRADES,
        entity: args.symbol,
        source: args.source,
        max_response_tokens: args.max_response_tokens,
        cursor: args.cursor,
        scope: scopeOf('recent_trades', args),
      }),
  );
}
