import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { REFERENCE_PRICE } from '../domain/catalog-enums.js';
import { cursor, maxResponseTokens } from '../domain/arguments.js';
import { READ_ONLY, envelopeOutput } from './answer.js';
import type { ToolContext } from './context.js';
import { readMetric } from './read-metric.js';
import { scopeOf } from '../domain/scope.js';

const referencePrice = z.looseObject({
  symbol: z.string(),
  price: z.union([z.number(), z.string()]),
  venues: z.array(z.looseObject({ venue: z.string() })),
});

export function registerReferencePrice(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'reference_price',
    {
      title: 'Crypto reference price',
      description:
        'Outlier-trimmed cross-venue price in USD with the per-venue prints it was built from (crypto/spot/reference_price; free plan). Calls get_metric.',
      inputSchema: {
        symbol: z.enum(ctx.served.enums.referenceSymbols).describe('the pair priced in USD'),
        source: z
          .enum(ctx.served.enums.spotVenues)
          .optional()
          .describe('narrow the venues whose books are priced'),
        max_response_tokens: maxResponseTokens,
        cursor,
      },
      outputSchema: envelopeOutput(referencePrice),
      annotations: { title: 'Crypto reference price', ...READ_ONLY },
    },
    (args) =>
      readMetric(ctx, {
        target: REFERENCE_PRICE,
        entity: args.symbol,
        source: args.source,
        max_response_tokens: args.max_response_tokens,
        cursor: args.cursor,
        scope: scopeOf('reference_price', args),
      }),
  );
}
