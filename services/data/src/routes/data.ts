import type { ParsedUrlQuery } from 'node:querystring';
import {
  DEFAULT_INTERVAL,
  metricPathOf,
  parameterRefusal,
  planReaches,
  queryParametersOf,
  resolveEntity,
  type CatalogHit,
  type Caller,
  type StoredVenues,
} from '@meridian/contracts';
import {
  httpProblem,
  parseQuery,
  signCursor,
  verifyCursor,
  type LeanRoute,
  type ProblemCode,
} from '@meridian/http-kit';
import type { DataDeps } from '../deps.js';
import { FIRST_LOAD_RETRY_AFTER_S } from '../jobs/first-load.js';
import { mergeReplayNotes, metricEnvelope, type SeriesMeta } from '../domain/envelope.js';
import type { MetricAnswer, MetricQuery } from '../domain/metric-resolver.js';
import { fitAnswer, PAGE_SIZE, shapeRows } from '../domain/series/shape.js';
import { resolverFor } from '../flows/resolve/index.js';
import { storedVenues } from '../flows/resolve/venues.js';
import { dataQuerySchema, type DataQuery } from './query.js';

const DATA_PREFIX = '/v1/data/';

/**
 * GET /v1/data/{category}/{product}/{metric} and the legacy single-metric routes, served on the
 * lean path: they are the hot reads of the service. The path is read by the contracts'
 * metricPathOf, the same function the gateway's gate uses. A path of another shape falls through
 * to express and its routing 404.
 */
export function dataLeanRoutes(deps: DataDeps): LeanRoute[] {
  const handle: LeanRoute['handle'] = (p, query, caller) =>
    answerMetric(deps, p.category!, p.product!, p.metric!, query, caller);
  return [
    {
      label: '/v1/data/:category/:product/:metric',
      match: (path) => (path.startsWith(DATA_PREFIX) ? pathParams(path) : undefined),
      handle,
    },
    {
      label: '/v1/:legacy_metric',
      match: (path) => (path.startsWith(DATA_PREFIX) ? undefined : pathParams(path)),
      handle,
    },
  ];
}

function pathParams(path: string): Record<string, string> | undefined {
  const named = metricPathOf(path);
  return named && { ...named };
}

/**
 * The gateway sells live metrics only to a key whose plan reaches the gate, or for a payment.
 * Checked here again so that no path the gateway reads differently can reach data unpaid.
 */
function checkCaller(caller: Caller, hit: CatalogHit, key: string): void {
  if (caller.auth === 'x402') return;
  if (caller.auth === 'anonymous' || !caller.plan)
    throw httpProblem('unauthorized', `${key} needs an API key or a payment (see GET /.well-known/x402).`);
  if (!planReaches(caller.plan, hit))
    throw httpProblem(
      'tier_forbidden',
      `The metric ${key} needs the ${hit.gate} plan or higher; this caller is on the ${caller.plan} plan.`,
    );
}

/** A resolver's refusal: its code is one of the house's problem kinds (Result's default codes). */
function refusal(code: ProblemCode, detail: string): never {
  throw httpProblem(code, detail);
}

async function answerMetric(
  deps: DataDeps,
  category: string,
  product: string,
  metric: string,
  rawQuery: ParsedUrlQuery,
  caller: Caller,
): Promise<unknown> {
  const hit = deps.catalog.findMetric(category, product, metric);
  if (!hit)
    throw httpProblem('route_not_found', `No metric ${category}/${product}/${metric}; see GET /v1/catalog`);
  const key = `${category}/${product}/${metric}`;
  if (hit.metric.status === 'planned')
    throw httpProblem(
      'not_yet_available',
      `${key} is planned: the path is right, the data is not collected yet`,
    );
  checkCaller(caller, hit, key);
  // A row filter on a metric that takes none is refused below, saying which metric takes it.
  const query = parseQuery(dataQuerySchema, rawQuery, 'query', queryParametersOf(hit));
  const now = new Date(deps.now());
  const stored =
    query.source !== undefined && !hit.product.sources.includes(query.source)
      ? await storedVenues(deps, hit, now)
      : {};
  const entity = checkEntity(hit, query, stored);
  const unanswerable = parameterRefusal(hit, query);
  if (unanswerable) refuseField(unanswerable.path.replace(/^query\./, ''), unanswerable.message);
  const interval = metric === 'ohlcv' ? (query.interval ?? DEFAULT_INTERVAL) : undefined;
  const resolver = resolverFor(key);
  if (!resolver) throw httpProblem('not_yet_available', `${key} has no resolver in this build`);
  const cursorKey = deps.config.cursorKey;
  // Bound to the query as resolved: a default written out or left implicit is the same query.
  const binding = { k: key, e: entity ?? null, s: query.source ?? null, i: interval ?? null };
  const metricQuery: MetricQuery = {
    category,
    product,
    metric,
    series: query.series ?? hit.metric.value_shape === 'series',
    now,
    ...(entity !== undefined ? { entity } : {}),
    ...(query.source !== undefined ? { source: query.source } : {}),
    ...(interval !== undefined ? { interval } : {}),
    ...(query.option_type !== undefined ? { option_type: query.option_type } : {}),
    ...(query.expiry !== undefined ? { expiry: query.expiry } : {}),
    ...(query.cursor !== undefined ? { cursor: openCursor(query.cursor, cursorKey, binding) } : {}),
  };
  const cached = metricQuery.cursor ? undefined : { key: cacheKey(metricQuery), category, product };
  const { result, envelope } = await deps.answers.answer(cached, now.getTime(), () =>
    resolver(deps, metricQuery, hit),
  );
  if (!result.ok && result.code === 'not_found' && deps.firstLoad.loading())
    throw httpProblem(
      'service_unavailable',
      `${key}: the recorded data is still loading after a start; retry in ${FIRST_LOAD_RETRY_AFTER_S} s`,
      { retryAfter: FIRST_LOAD_RETRY_AFTER_S },
    );
  if (!result.ok) refusal(result.code, result.detail);
  const answer = result.value;
  const replay = mergeReplayNotes(answer.replay, deps.replayNote(answer));
  if (!answer.rows) {
    refuseSeriesParams(query);
    return envelope('', () => metricEnvelope(answer, answer.data, undefined, replay));
  }
  const shape = () =>
    shapeSeries(answer, query, cursorKey, binding, (data, meta) =>
      metricEnvelope(answer, data, meta, replay),
    );
  // A token budget measures the serialised answer, whose age is part of it: shaped per request.
  if (query.max_response_tokens !== undefined) return shape();
  return envelope(`${query.fields?.join(',') ?? ''}|${query.format ?? ''}`, shape);
}

/** The question a query asks, written out: a first page (no cursor) only, the one most callers ask. */
function cacheKey(q: MetricQuery): string {
  return [q.category, q.product, q.metric, q.entity, q.source, q.interval, q.series, q.option_type, q.expiry]
    .map((v) => v ?? '')
    .join('|');
}

function refuseField(name: string, message: string): never {
  throw httpProblem('validation_failed', `query.${name}: ${message}`, {
    errors: [{ path: `query.${name}`, message }],
  });
}

/**
 * The entity to answer (the catalogue's default when none is named), or a 400 saying what would
 * work: a source that is not a venue of the product, an entity outside the product, the venue or
 * the metric (the catalogue's `venue_entities`, `combined_entities` and the metric's `entities`).
 */
function checkEntity(hit: CatalogHit, query: DataQuery, stored: StoredVenues): string | undefined {
  const resolved = resolveEntity(hit, query.entity, query.source, stored);
  if (resolved.ok) return resolved.entity;
  return refuseField(resolved.refusal.path.replace(/^query\./, ''), resolved.refusal.message);
}

function refuseSeriesParams(query: DataQuery): void {
  for (const name of ['fields', 'format', 'cursor', 'max_response_tokens'] as const)
    if (query[name] !== undefined) refuseField(name, 'applies to series-shaped answers only');
}

function openCursor(cursor: string, key: string, binding: Record<string, unknown>): Record<string, unknown> {
  const state = verifyCursor(cursor, key);
  if (!state)
    throw httpProblem('invalid_cursor', 'The cursor was altered or was not issued by this service.');
  for (const [k, v] of Object.entries(binding))
    if (state[k] !== v)
      throw httpProblem(
        'invalid_cursor',
        'The cursor belongs to another query (metric, entity, source or interval).',
      );
  const position = state.p;
  if (!position || typeof position !== 'object')
    throw httpProblem('invalid_cursor', 'The cursor holds no position.');
  return position as Record<string, unknown>;
}

/**
 * Fields, format and max_response_tokens of a series answer. The budget bounds the whole serialised
 * answer (envelope included, measured, ≈ 4 characters per token); whole rows go, oldest first.
 */
function shapeSeries(
  answer: MetricAnswer,
  query: DataQuery,
  cursorKey: string,
  binding: Record<string, unknown>,
  wrap: (data: unknown, meta: SeriesMeta) => unknown,
): unknown {
  const rows = answer.rows!;
  const columns = answer.columns ?? Object.keys(rows[0] ?? {});
  const table = query.format === 'table';
  const selected = shapeRows(rows, columns, query.fields, table);
  if (!selected.ok) refusal(selected.code, selected.detail);
  const { columns: kept, rows: shaped } = selected.value;
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
  query: DataQuery,
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
