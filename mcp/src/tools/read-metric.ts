import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { findMetric } from '@meridian/contracts';
import { pathOf, type MetricTarget } from '../domain/catalog-enums.js';
import { decodeCursor, encodeCursor, isLocalCursor } from './local-cursor.js';
import { pageOf, seriesPaging } from '../domain/paging.js';
import { invalidArgument, invalidCursor, toolError } from '../domain/tool-error.js';
import { unknownMetric } from '../domain/unknown-metric.js';
import { failure, success } from './answer.js';
import type { ToolContext } from './context.js';

export interface MetricQuestion {
  target: MetricTarget;
  entity?: string;
  source?: string;
  series?: boolean;
  interval?: string;
  max_response_tokens: number;
  cursor?: string;
  /** Row filters the metric takes, passed on (option_chain's option_type and expiry). */
  filters?: { option_type?: string; expiry?: string };
  /** Binds a cursor of this server to the question (tool and arguments). */
  scope: string;
}

/**
 * get_metric and the crypto tools that call it (data-api-interface 4.6): one GET of the data
 * endpoint with the caller's key. A series answer is cut by the data service itself
 * (max_response_tokens and its own cursor); any other answer is cut here, on its rows.
 */
export async function readMetric(ctx: ToolContext, q: MetricQuestion): Promise<CallToolResult> {
  const hit = findMetric(q.target.category, q.target.product, q.target.metric);
  if (!hit) return failure(unknownMetric(q.target));
  const series = hit.metric.value_shape === 'series' || q.series === true;
  if (q.interval !== undefined && q.target.metric !== 'ohlcv')
    return failure(invalidArgument('interval applies to ohlcv only.', 'Leave interval out for this metric.'));
  const path = `/v1/data/${pathOf(q.target)}`;
  const query = {
    entity: q.entity,
    source: q.source,
    series: q.series === undefined ? undefined : String(q.series),
    interval: q.interval,
    option_type: q.filters?.option_type,
    expiry: q.filters?.expiry,
  };
  if (series) {
    if (q.cursor !== undefined && isLocalCursor(q.cursor)) return failure(invalidCursor());
    const answer = await ctx.api.get(
      path,
      { ...query, max_response_tokens: String(q.max_response_tokens), cursor: q.cursor },
      ctx.caller,
    );
    if (!answer.ok) return failure(toolError(answer.refusal));
    return success({
      ...seriesPaging(answer.body),
      ...(answer.rateLimit ? { rate_limit: answer.rateLimit } : {}),
    });
  }
  const offset = q.cursor === undefined ? 0 : decodeCursor(ctx.cursorSecret, q.cursor, q.scope);
  if (offset === undefined) return failure(invalidCursor());
  const answer = await ctx.api.get(path, query, ctx.caller);
  if (!answer.ok) return failure(toolError(answer.refusal));
  const page = pageOf(answer.body, offset, q.max_response_tokens, (next) =>
    encodeCursor(ctx.cursorSecret, { scope: q.scope, offset: next }),
  );
  return success({ ...page, ...(answer.rateLimit ? { rate_limit: answer.rateLimit } : {}) });
}
