import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { INTERVALS, OHLCV } from '../domain/catalog-enums.js';
import { cursor, maxResponseTokens } from '../domain/arguments.js';
import { READ_ONLY, envelopeOutput, failure } from './answer.js';
import type { ToolContext } from './context.js';
import { readMetric } from './read-metric.js';
import { scopeOf } from '../domain/scope.js';
import { describeMarkets, marketRefusal, spotMarkets } from '../domain/spot-markets.js';

/**
 * The ohlcv tool takes `source`, and its schema lists each pair with the venues that answer it: a
 * venue's own market (BTC-USDT) is refused without one, here, in words that name its venues.
 */
export function registerOhlcv(server: McpServer, ctx: ToolContext): void {
  const markets = spotMarkets(ctx.served.products, OHLCV.metric);
  server.registerTool(
    'ohlcv',
    {
      title: 'Crypto OHLCV bars',
      description: `Open, high, low, close, volume bars of a spot market, newest page first (crypto/spot/ohlcv; free plan). Pairs and their venues: ${describeMarkets(markets)}. Calls get_metric.`,
      inputSchema: {
        symbol: z
          .enum(ctx.served.enums.spotSymbols)
          .describe(`spot market, with the venues answering it: ${describeMarkets(markets)}`),
        interval: z
          .enum(INTERVALS)
          .default('1m')
          .describe('bar interval: 1s and 1m native, the others rolled up'),
        source: z
          .enum(ctx.served.enums.spotVenues)
          .optional()
          .describe("one venue's own bars (a venue listing the symbol); omit for the combined bars"),
        max_response_tokens: maxResponseTokens,
        cursor,
      },
      outputSchema: envelopeOutput(z.unknown().describe('bars, oldest to newest')),
      annotations: { title: 'Crypto OHLCV bars', ...READ_ONLY },
    },
    (args) => {
      const refused = marketRefusal(markets, args.symbol, args.source);
      if (refused) return Promise.resolve(failure(refused));
      return readMetric(ctx, {
        target: OHLCV,
        entity: args.symbol,
        source: args.source,
        interval: args.interval,
        max_response_tokens: args.max_response_tokens,
        cursor: args.cursor,
        scope: scopeOf('ohlcv', args),
      });
    },
  );
}
