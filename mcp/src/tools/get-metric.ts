import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { INTERVALS } from '../domain/catalog-enums.js';
import { cursor, maxResponseTokens } from '../domain/arguments.js';
import { READ_ONLY, envelopeOutput } from './answer.js';
import type { ToolContext } from './context.js';
import { readMetric } from './read-metric.js';
import { scopeOf } from '../domain/scope.js';

export function registerGetMetric(server: McpServer, ctx: ToolContext): void {
  const { enums } = ctx.served;
  server.registerTool(
    'get_metric',
    {
      title: 'Read a metric',
      description:
        'Reads any live metric of the catalogue (GET /v1/data/{category}/{product}/{metric}) with your API key: the value, meta (as_of, venues, staleness_ms, confidence) and provenance. browse_catalog says which entities, sources and plan each metric takes.',
      inputSchema: {
        category: z.enum(enums.categories).describe('catalogue category'),
        product: z.enum(enums.products).describe('product of the category'),
        metric: z.enum(enums.metrics).describe('metric of the product'),
        entity: z
          .enum(enums.symbols)
          .optional()
          .describe(
            "instrument, market, league, city or topic; omit for the product's default or a product without entities",
          ),
        source: z
          .enum(enums.venues)
          .optional()
          .describe('one venue; omit for the combined cross-venue value'),
        series: z.boolean().optional().describe('true reads the history (series) where the metric has one'),
        interval: z.enum(INTERVALS).optional().describe('ohlcv only: 1s and 1m native, the others rolled up'),
        max_response_tokens: maxResponseTokens,
        cursor,
      },
      outputSchema: envelopeOutput(z.unknown().describe('the value; its shape is the metric value_shape')),
      annotations: { title: 'Read a metric', ...READ_ONLY },
    },
    (args) =>
      readMetric(ctx, {
        target: { category: args.category, product: args.product, metric: args.metric },
        entity: args.entity,
        source: args.source,
        series: args.series,
        interval: args.interval,
        max_response_tokens: args.max_response_tokens,
        cursor: args.cursor,
        scope: scopeOf('get_metric', args),
      }),
  );
}
