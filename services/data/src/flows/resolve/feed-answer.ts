import { ok, refuse, type CatalogHit, type Result } from '@meridian/contracts';
import { replayMarker } from '../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../deps.js';
import { confidence } from '../../domain/confidence.js';
import { addMonths } from '../../domain/replay-clock.js';
import type { MetricAnswer, MetricQuery, ReplayNote, SourceRef } from '../../domain/metric-resolver.js';

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
  /**
   * The first instant the answer may change with no new data (Ageing.validUntil): a kept value
   * turning stale, a window dropping a row; `now` for an answer that ages in other ways (never kept).
   */
  validUntil?: number;
}

/** Envelope fields of a feed answer; the method says when the data is a replay of a recording. */
export async function feedAnswer(deps: DataDeps, input: FeedAnswerInput): Promise<MetricAnswer> {
  const venues = [...new Set(input.sources.map((s) => s.venue))];
  const staleness = Math.max(0, input.now.getTime() - input.asOf.getTime());
  const played = await playedRecordings(deps, input);
  const method =
    played.length > 0
      ? `${input.method} Data: replay of the recording ${played.map((p) => p.words).join('; ')}; not a live print.`
      : input.method;
  const ages = { venues: venues.length, dispersion: input.dispersion ?? 0, max_age_ms: maxAgeOf(input.hit) };
  const answer: MetricAnswer = {
    data: input.data,
    as_of: input.asOf.toISOString(),
    venues,
    staleness_ms: staleness,
    confidence: confidence({ ...ages, staleness_ms: staleness }),
    sources: input.sources,
    method,
    ageing: {
      asOf: input.asOf.getTime(),
      confidence: ages,
      ...(input.validUntil !== undefined ? { validUntil: input.validUntil } : {}),
    },
  };
  if (played.length > 0) answer.replay = feedReplayNote(played, input);
  if (input.excluded && input.excluded.length > 0) answer.excluded = input.excluded;
  if (input.rows) {
    answer.rows = input.rows;
    answer.next_cursor_state = input.nextCursor ?? null;
    if (input.resumeBefore) answer.resumeBefore = input.resumeBefore;
  }
  return answer;
}

interface PlayedRecording {
  source: string;
  file: string;
  sample: boolean;
  words: string;
  /** The original time of a ts this recording's play stored. */
  original(ts: string): string;
}

/** The recordings the answer's data was played from: each one whose marker is as new as the data. */
async function playedRecordings(deps: DataDeps, input: FeedAnswerInput): Promise<PlayedRecording[]> {
  const played: PlayedRecording[] = [];
  for (const r of [input.replay ?? []].flat()) {
    const marker = await replayMarker(deps.db, r.source, r.file, input.now);
    // A live connector's newer data is not a replay: the marker must be at least as new as the data.
    if (!marker || marker.ts.getTime() < input.asOf.getTime() - MAX_REPLAY_SPREAD_MS) continue;
    const p = marker.payload as ReplayMarkerPayload;
    const scaled = p.scaled ? `; ${p.scaled}` : '';
    played.push({
      source: r.source,
      file: p.file ?? r.file,
      sample: p.real === undefined ? !/real/.test(p.sample ?? '') : !p.real,
      words: `${p.file} (${p.sample}, recorded ${p.recorded_at}, ${p.shift} to the present${scaled})`,
      original: originalTime(p, marker.ts),
    });
  }
  return played;
}

/** What a replay marker says of its play (jobs/feeds/recorded-feeds.ts). */
interface ReplayMarkerPayload {
  file?: string;
  recorded_at?: string;
  shift?: string;
  sample?: string;
  real?: boolean;
  shift_months?: number;
  scaled?: string;
}

/**
 * A played ts back to its recorded time: whole months back for a monthly series, else the marker's
 * own distance from the recording's instant (whole days, or the slot it was played at).
 */
function originalTime(p: ReplayMarkerPayload, markerTs: Date): (ts: string) => string {
  if (p.shift_months !== undefined) {
    const months = p.shift_months;
    return (ts) => new Date(addMonths(Date.parse(ts), -months)).toISOString();
  }
  const delta = p.recorded_at ? markerTs.getTime() - Date.parse(p.recorded_at) : 0;
  return (ts) => new Date(Date.parse(ts) - delta).toISOString();
}

function feedReplayNote(played: PlayedRecording[], input: FeedAnswerInput): ReplayNote {
  const bySource = new Map(played.map((p) => [p.source, p]));
  // The newest point's own recording decides its recorded time (the basis: a perp's, not spot's).
  const newestVenue = input.sources.find((s) => Date.parse(s.ts) === input.asOf.getTime())?.venue;
  const newest = played.find((p) => p.source === newestVenue) ?? played[0]!;
  const samples = played.filter((p) => p.sample).length;
  return {
    recorded: [...new Set(played.map((p) => p.file))].join(', '),
    kind: samples === 0 ? 'recording' : samples === played.length ? 'sample' : 'mixed',
    recorded_at: newest.original(iso(input.asOf)),
    played_at: iso(input.asOf),
    recordedTs: (s) => bySource.get(s.venue)?.original(s.ts),
  };
}

export const noData = (what: string) =>
  refuse('not_found', `no stored data for ${what} yet; the feed has not delivered any`);

export const iso = (d: Date) => d.toISOString();
