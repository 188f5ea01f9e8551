import {
  DEFAULT_INTERVAL,
  ok,
  parameterRefusal,
  planReaches,
  refuse,
  resolveEntity,
  type CatalogHit,
  type Caller,
  type DataQueryInput,
  type Result,
} from '@meridian/contracts';
import { signCursor, verifyCursor } from '@meridian/http-kit';
import type { DataDeps } from '../deps.js';
import { mergeReplayNotes, metricEnvelope, type SeriesMeta } from '../domain/envelope.js';
import type { MetricAnswer, MetricQuery } from '../domain/metric-resolver.js';
import { FIRST_LOAD_RETRY_AFTER_S } from '../jobs/first-load.js';
import { inputRefusal, isResolverRefusal, type DataRefusal, type DataRefused } from '../domain/refusals.js';
import { fitAnswer, PAGE_SIZE, shapeRows, unknownFields } from '../domain/series/shape.js';
import { resolverFor } from './resolve/index.js';
import { storedVenues } from './resolve/venues.js';

/** A metric's place in the catalogue, as the path names it. */
export interface MetricPath {
  category: string;
  product: string;
  metric: string;
}

/** The answer's body, or why there is none. */
export type MetricAnswered = { ok: true; value: unknown } | DataRefused;

/**
 * The catalogue's entry of the metric, if this caller may be answered it. The gateway sells live
 * metrics only to a key whose plan reaches the gate, or for a payment: checked here again so that
 * no path the gateway reads differently can reach data unpaid.
 */
export function admitMetric(
  deps: DataDeps,
  path: MetricPath,
  caller: Caller,
): Result<CatalogHit, DataRefusal> {
  const { category, product, metric } = path;
  const key = `${category}/${product}/${metric}`;
  const hit = deps.catalog.findMetric(category, product, metric);
  if (!hit) return refuse('unknown_metric', `No metric ${key}; see GET /v1/catalog`);
  if (hit.metric.status === 'planned')
    return refuse('not_yet_available', `${key} is planned: the path is right, the data is not collected yet`);
  if (caller.auth === 'x402') return ok(hit);
  if (caller.auth === 'anonymous' || !caller.plan)
    return refuse('unauthorized', `${key} needs an API key or a payment (see GET /.well-known/x402).`);
  if (!planReaches(caller.plan, hit))
    return refuse(
      'tier_forbidden',
      `The metric ${key} needs the ${hit.gate} plan or higher; this caller is on the ${caller.plan} plan.`,
    );
  return ok(hit);
}

/**
 * The answer of an admitted metric to a parsed query (data-api-interface 4.1): the resolver's
 * answer, from the answer cache while its data has not changed, in the envelope, with fields,
 * format, cursor and token budget applied to a series.
 */
export async function answerMetric(
  deps: DataDeps,
  path: MetricPath,
  hit: CatalogHit,
  query: DataQueryInput,
): Promise<MetricAnswered> {
  const key = `${path.category}/${path.product}/${path.metric}`;
  const now = new Date(deps.now());
  const stored =
    query.source !== undefined && !hit.product.sources.includes(query.source)
      ? await storedVenues(deps, hit, now)
      : {};
  const resolved = resolveEntity(hit, query.entity, query.source, stored);
  if (!resolved.ok) return inputRefusal(resolved.refusal);
  const entity = resolved.entity;
  // A row filter on a metric that takes none is refused here, saying which metric takes it.
  const unanswerable = parameterRefusal(hit, query);
  if (unanswerable) return inputRefusal(unanswerable);
  const interval = path.metric === 'ohlcv' ? (query.interval ?? DEFAULT_INTERVAL) : undefined;
  const resolver = resolverFor(key);
  if (!resolver) return refuse('not_yet_available', `${key} has no resolver in this build`);
  const cursorKey = deps.config.cursorKey;
  // Bound to the query as resolved: a default written out or left implicit is the same query.
  const binding = { k: key, e: entity ?? null, s: query.source ?? null, i: interval ?? null };
  const cursor = query.cursor !== undefined ? openCursor(query.cursor, cursorKey, binding) : undefined;
  if (cursor && !cursor.ok) return cursor;
  const metricQuery: MetricQuery = {
    ...path,
    series: query.series ?? hit.metric.value_shape === 'series',
    now,
    ...(entity !== undefined ? { entity } : {}),
    ...(query.source !== undefined ? { source: query.source } : {}),
    ...(interval !== undefined ? { interval } : {}),
    ...(query.option_type !== undefined ? { option_type: query.option_type } : {}),
    ...(query.expiry !== undefined ? { expiry: query.expiry } : {}),
    ...(cursor ? { cursor: cursor.value } : {}),
  };
  // A later page is the question and its cursor's position (the cursor is bound to the question).
  const cached = {
    key: cursor ? `${cacheKey(metricQuery)}|${JSON.stringify(cursor.value)}` : cacheKey(metricQuery),
    category: path.category,
    product: path.product,
    later: cursor !== undefined,
  };
  const { result, envelope } = await deps.answers.answer(cached, now.getTime(), () =>
    resolver(deps, metricQuery, hit),
  );
  if (!result.ok) return resolverRefused(deps, key, result.code, result.detail);
  const answer = result.value;
  const replay = mergeReplayNotes(answer.replay, deps.replayNote(answer));
  if (!answer.rows) {
    const misplaced = seriesParamsRefusal(query);
    if (misplaced) return misplaced;
    return ok(envelope('', () => metricEnvelope(answer, answer.data, undefined, replay)));
  }
  const columns = answer.columns ?? Object.keys(answer.rows[0] ?? {});
  const unknown = unknownFields(columns, query.fields);
  if (unknown) return refuse('validation_failed', unknown);
  const shape = () =>
    shapeSeries(answer, columns, query, cursorKey, binding, (data, meta) =>
      metricEnvelope(answer, data, meta, replay),
    );
  // A token budget measures the serialised answer, whose age is part of it: shaped per request.
  if (query.max_response_tokens !== undefined) return ok(shape());
  return ok(envelope(`${query.fields?.join(',') ?? ''}|${query.format ?? ''}`, shape));
}

/**
 * A resolver's refusal as the caller gets it: nothing stored while the replay's first load runs is
 * a wait, not an absence. A code no resolver may return is a bug, not a refusal.
 */
function resolverRefused(deps: DataDeps, key: string, code: string, detail: string): DataRefused {
  if (!isResolverRefusal(code)) throw new Error(`a resolver of ${key} refused with ${code}: ${detail}`);
  if (code === 'not_found' && deps.firstLoad.loading())
    return refuse(
      'first_load_running',
      `${key}: the recorded data is still loading after a start; retry in ${FIRST_LOAD_RETRY_AFTER_S} s`,
    );
  return refuse(code, detail);
}

/** The question a query asks, written out (a page's position apart). */
function cacheKey(q: MetricQuery): string {
  return [q.category, q.product, q.metric, q.entity, q.source, q.interval, q.series, q.option_type, q.expiry]
    .map((v) => v ?? '')
    .join('|');
}

function seriesParamsRefusal(query: DataQueryInput): DataRefused | undefined {
  for (const name of ['fields', 'format', 'cursor', 'max_response_tokens'] as const)
    if (query[name] !== undefined)
      return inputRefusal({ path: `query.${name}`, message: 'applies to series-shaped answers only' });
  return undefined;
}

function openCursor(
  cursor: string,
  key: string,
  binding: Record<string, unknown>,
): Result<Record<string, unknown>, DataRefusal> {
  const state = verifyCursor(cursor, key);
  if (!state) return refuse('invalid_cursor', 'The cursor was altered or was not issued by this service.');
  for (const [k, v] of Object.entries(binding))
    if (state[k] !== v)
      return refuse(
        'invalid_cursor',
        'The cursor belongs to another query (metric, entity, source or interval).',
      );
  const position = state.p;
  if (!position || typeof position !== 'object')
    return refuse('invalid_cursor', 'The cursor holds no position.');
  return ok(position as Record<string, unknown>);
}

/**
 * Fields, format and max_response_tokens of a series answer (its fields checked already). The
 * budget bounds the whole serialised answer (envelope included, measured, ≈ 4 characters per
 * token); whole rows go, oldest first.
 */
function shapeSeries(
  answer: MetricAnswer,
  columns: string[],
  query: DataQueryInput,
  cursorKey: string,
  binding: Record<string, unknown>,
  wrap: (data: unknown, meta: SeriesMeta) => unknown,
): unknown {
  const table = query.format === 'table';
  const { columns: kept, rows: shaped } = shapeRows(answer.rows!, columns, query.fields, table);
  const build = (dropped: number, overBudget = false) => {
    const page = dropped > 0 ? shaped.slice(dropped) : shaped;
    const data = table ? { columns: kept, rows: page } : page;
    return wrap(data, seriesMeta(answer, query, cursorKey, binding, dropped, shaped.length, overBudget));
  };
  if (query.max_response_tokens === undefined) return build(0);
  const fit = fitAnswer(shaped, query.max_response_tokens, (dropped, over) =>
    JSON.stringify(build(dropped, over)),
  );
  return JSON.parse(fit.body) as unknown;
}

function seriesMeta(
  answer: MetricAnswer,
  query: DataQueryInput,
  cursorKey: string,
  binding: Record<string, unknown>,
  dropped: number,
  total: number,
  overBudget: boolean,
): SeriesMeta {
  // Truncation resumes before the oldest row kept; otherwise where the resolver's page ended.
  if (dropped > 0 && !answer.resumeBefore)
    throw new Error('a series resolver answered rows without resumeBefore: truncation would lose rows');
  const resume = dropped > 0 ? answer.resumeBefore!(answer.rows![dropped]!) : answer.next_cursor_state;
  const nextCursor = resume ? signCursor({ ...binding, p: resume }, cursorKey) : null;
  const returned = total - dropped;
  const meta: SeriesMeta = {
    has_more: nextCursor !== null,
    next_cursor: nextCursor,
    truncated: dropped > 0,
    returned,
  };
  const budget = query.max_response_tokens;
  if (overBudget)
    meta.hint = `Truncated to the newest row of ${total}, which alone exceeds max_response_tokens=${budget} with the envelope (one row is always returned); raise max_response_tokens or keep fewer fields, and pass next_cursor for older rows.`;
  else if (dropped > 0)
    meta.hint = `Truncated to the newest ${returned} of ${total} rows to fit max_response_tokens=${budget}; pass next_cursor for older rows, or keep fewer fields.`;
  else if (total >= PAGE_SIZE && nextCursor)
    meta.hint = `Page of ${PAGE_SIZE} rows; pass next_cursor for older rows.`;
  return meta;
}
