import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OPTION_CHAIN, OPTION_TYPES, UNDERLYINGS } from '../domain/catalog-enums.js';
import { onlyOptionType } from '../domain/option-type.js';
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
        'Options chain of an underlying with marks, implied volatility (fraction), greeks and open interest (crypto/options/chain; pro plan). Calls get_metric; option_type keeps calls or puts only.',
      inputSchema: {
        underlying: z.enum(UNDERLYINGS).describe('underlying asset'),
        option_type: z.enum(OPTION_TYPES).optional().describe('call or put; omit for both'),
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
        narrow: onlyOptionType(args.option_type),
        scope: scopeOf('option_chain', args),
      }),
  );
}
