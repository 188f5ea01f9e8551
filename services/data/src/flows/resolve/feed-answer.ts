import { ok, refuse, type CatalogHit, type Result } from '@meridian/contracts';
import { replayMarker } from '../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../deps.js';
import { confidence } from '../../domain/confidence.js';
import type { MetricAnswer, MetricQuery, SourceRef } from '../../domain/metric-resolver.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** Replayed feeds of several venues land within this of each other. */
const MAX_REPLAY_SPREAD_MS = 5 * MINUTE;

/**
 * The entity of a query checked against the catalogue: a product without entities takes none;
 * a product with entities takes one of them (case as listed, compared case-insensitively), or
 * `fallback` when the query names none.
 */
export function entityOf(query: MetricQuery, hit: CatalogHit, fallback?: string): Result<string | undefined> {
  const allowed = hit.product.entities;
  const path = `${query.category}/${query.product}`;
  if (query.entity === undefined || query.entity === '') return ok(fallback);
  if (allowed.length === 0)
    return refuse('validation_failed', `entity: ${path} takes no entity; got '${query.entity}'`);
  const found = allowed.find((e) => e.toLowerCase() === query.entity!.toLowerCase());
  if (!found)
    return refuse(
      'validation_failed',
      `entity: '${query.entity}' is not an entity of ${path}; allowed: ${allowed.join(', ')}`,
    );
  return ok(found);
}

/** The `source` of a query checked against the product's venues. */
export function sourceOf(query: MetricQuery, hit: CatalogHit): Result<string | undefined> {
  if (query.source === undefined || query.source === '') return ok(undefined);
  const allowed = hit.product.sources;
  if (!allowed.includes(query.source))
    return refuse(
      'validation_failed',
      `source: '${query.source}' is not a source of ${query.category}/${query.product}; allowed: ${allowed.join(', ')}`,
    );
  return ok(query.source);
}

/** Products of these metrics take no entity: check it (and the source) the same way everywhere. */
export function noEntity(query: MetricQuery, hit: CatalogHit) {
  const entity = entityOf(query, hit);
  if (!entity.ok) return entity;
  return sourceOf(query, hit);
}

/**
 * The catalogue's max age of a metric (MetricEntry.max_age_ms): the one age limit of its resolver, for
 * stale exclusion and the confidence's freshness alike. Only a real-time tick metric has none.
 */
export function maxAgeOf(hit: CatalogHit): number {
  const ms = hit.metric.max_age_ms;
  if (ms === undefined)
    throw new Error(
      `the catalogue gives ${hit.product.category}/${hit.product.product}/${hit.metric.metric} no max_age_ms`,
    );
  return ms;
}

export interface FeedAnswerInput {
  data: unknown;
  now: Date;
  /** Time of the newest data point behind the answer. */
  asOf: Date;
  sources: SourceRef[];
  method: string;
  /** The metric answered: its catalogue entry's max_age_ms is the age that scores 0.37 on freshness. */
  hit: CatalogHit;
  /** The recordings the data may have been replayed from: `{source, file}` each. */
  replay?: { source: string; file: string } | { source: string; file: string }[];
  rows?: Record<string, unknown>[];
  nextCursor?: Record<string, unknown> | null;
  /** With rows: the cursor state that resumes strictly before a row (see MetricAnswer.resumeBefore). */
  resumeBefore?: (row: Record<string, unknown>) => Record<string, unknown>;
  excluded?: { venue: string; reason: string }[];
  /** Relative dispersion of the values combined (0 for one source). */
  dispersion?: number;
}

/** Envelope fields of a feed answer; the method says when the data is a replay of a recording. */
export async function feedAnswer(deps: DataDeps, input: FeedAnswerInput): Promise<MetricAnswer> {
  const venues = [...new Set(input.sources.map((s) => s.venue))];
  const staleness = Math.max(0, input.now.getTime() - input.asOf.getTime());
  let method = input.method;
  const notes: string[] = [];
  for (const r of [input.replay ?? []].flat()) {
    const marker = await replayMarker(deps.db, r.source, r.file, input.now);
    // A live connector's newer data is not a replay: the marker must be at least as new as the data.
    if (!marker || marker.ts.getTime() < input.asOf.getTime() - MAX_REPLAY_SPREAD_MS) continue;
    const p = marker.payload as {
      file?: string;
      recorded_at?: string;
      shift?: string;
      sample?: string;
      scaled?: string;
    };
    const scaled = p.scaled ? `; ${p.scaled}` : '';
    notes.push(`${p.file} (${p.sample}, recorded ${p.recorded_at}, ${p.shift} to the present${scaled})`);
  }
  if (notes.length > 0) method += ` Data: replay of the recording ${notes.join('; ')}; not a live print.`;
  const answer: MetricAnswer = {
    data: input.data,
    as_of: input.asOf.toISOString(),
    venues,
    staleness_ms: staleness,
    confidence: confidence({
      venues: venues.length,
      dispersion: input.dispersion ?? 0,
      staleness_ms: staleness,
      max_age_ms: maxAgeOf(input.hit),
    }),
    sources: input.sources,
    method,
  };
  if (input.excluded && input.excluded.length > 0) answer.excluded = input.excluded;
  if (input.rows) {
    answer.rows = input.rows;
    answer.next_cursor_state = input.nextCursor ?? null;
    if (input.resumeBefore) answer.resumeBefore = input.resumeBefore;
  }
  return answer;
}

export const noData = (what: string) =>
  refuse('not_found', `no stored data for ${what} yet; the feed has not delivered any`);

export const iso = (d: Date) => d.toISOString();
