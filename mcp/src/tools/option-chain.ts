import { z } from 'zod';
import { dataQuerySchema } from '@meridian/contracts';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OPTION_CHAIN, OPTION_TYPES } from '../domain/catalog-enums.js';
import { cursor, maxResponseTokens } from '../domain/arguments.js';
import { READ_ONLY, envelopeOutput } from './answer.js';
import type { ToolContext } from './context.js';
import { readMetric } from './read-metric.js';
import { scopeOf } from '../domain/scope.js';

/** data-api-interface 2.2, options chain. */
const chain = z.looseObject({
  underlying: z.string(),
  underlying_px: z.number().nullable(),
  options: z.array(
    z.looseObject({
      instrument: z.string(),
      expiry: z.string(),
      strike: z.number(),
      option_type: z.enum(OPTION_TYPES),
    }),
  ),
});

export function registerOptionChain(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'option_chain',
    {
      title: 'Crypto options chain',
      description:
        'Options chain of an underlying with marks, implied volatility (fraction), greeks and open interest (crypto/options/chain; pro plan). Calls get_metric; option_type keeps calls or puts only, expiry (YYYY-MM-DD) the options expiring on that UTC day.',
      inputSchema: {
        underlying: z.enum(ctx.served.enums.underlyings).describe('underlying asset'),
        option_type: z.enum(OPTION_TYPES).optional().describe('call or put; omit for both'),
        // The data API's own definition: the date it takes, the same message when it is not one.
        expiry: dataQuerySchema.shape.expiry.describe(
          'UTC day of the expiry, YYYY-MM-DD (e.g. 2026-12-25); omit for every expiry',
        ),
        max_response_tokens: maxResponseTokens,
        cursor,
      },
      outputSchema: envelopeOutput(chain),
      annotations: { title: 'Crypto options chain', ...READ_ONLY },
    },
    (args) =>
      readMetric(ctx, {
        target: OPTION_CHAIN,
        entity: args.underlying,
        max_response_tokens: args.max_response_tokens,
        cursor: args.cursor,
        // Filtered by the data service (its row filters), before this server cuts a page.
        filters: { option_type: args.option_type, expiry: args.expiry },
        scope: scopeOf('option_chain', args),
      }),
  );
}
