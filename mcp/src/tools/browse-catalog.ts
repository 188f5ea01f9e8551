import { z } from 'zod';
import { PLANS } from '@meridian/contracts';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { STATUSES } from '../domain/catalog-enums.js';
import { catalogRows } from '../domain/catalog-rows.js';
import { decodeCursor, encodeCursor } from './local-cursor.js';
import { pageOf } from '../domain/paging.js';
import { invalidArgument, invalidCursor, toolError } from '../domain/tool-error.js';
import { cursor, maxResponseTokens } from '../domain/arguments.js';
import { READ_ONLY, envelopeOutput, failure, success } from './answer.js';
import type { ToolContext } from './context.js';
import { scopeOf } from '../domain/scope.js';

const row = z.looseObject({
  path: z.string(),
  category: z.string(),
  product: z.string(),
  metric: z.string(),
  status: z.enum(STATUSES),
  min_tier: z.enum(PLANS),
  value_shape: z.string(),
  unit: z.string(),
  cadence: z.string(),
  series: z.boolean(),
  entities: z.array(z.string()),
  sources: z.array(z.string()),
  description: z.string(),
});

export function registerBrowseCatalog(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'browse_catalog',
    {
      title: 'Browse the metric catalogue',
      description:
        'Lists the metrics of the catalogue (GET /v1/catalog, no key needed): path, status (live or planned), the plan each needs (min_tier), shape, unit, cadence, entities and sources. Filter by category, product, status or plan; then read one with get_metric.',
      inputSchema: {
        category: z.enum(ctx.served.enums.categories).optional().describe('only this category'),
        product: z.enum(ctx.served.enums.products).optional().describe('only products of this name'),
        status: z.enum(STATUSES).optional().describe('live (served) or planned (not collected yet)'),
        min_tier: z.enum(PLANS).optional().describe('only metrics whose gate is this plan'),
        max_response_tokens: maxResponseTokens,
        cursor,
      },
      outputSchema: envelopeOutput(z.object({ metrics: z.array(row) })),
      annotations: { title: 'Browse the metric catalogue', ...READ_ONLY },
    },
    async (args) => {
      const scope = scopeOf('browse_catalog', args);
      const offset = args.cursor === undefined ? 0 : decodeCursor(ctx.cursorSecret, args.cursor, scope);
      if (offset === undefined) return failure(invalidCursor());
      const answer = await ctx.api.get(
        '/v1/catalog',
        {},
        {
          ...(ctx.caller.forwardedFor ? { forwardedFor: ctx.caller.forwardedFor } : {}),
          ...(ctx.caller.vouch ? { vouch: ctx.caller.vouch } : {}),
        },
      );
      if (!answer.ok) return failure(toolError(answer.refusal));
      const metrics = catalogRows(answer.body.data, args);
      if (metrics.length === 0)
        return failure(
          invalidArgument(
            'No metric of the catalogue matches these filters.',
            'Loosen the filters (a product name belongs to its category: crypto/spot, fx/spot, ...), or call browse_catalog without arguments.',
          ),
        );
      const page = pageOf({ ...answer.body, data: { metrics } }, offset, args.max_response_tokens, (next) =>
        encodeCursor(ctx.cursorSecret, { scope, offset: next }),
      );
      return success(page);
    },
  );
}
