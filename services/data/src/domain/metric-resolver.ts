import type { CatalogHit, Result } from '@meridian/contracts';
import type { Ageing } from './answer-ageing.js';

/** One data-endpoint query after parsing (data-api-interface 4.1). */
export interface MetricQuery {
  category: string;
  product: string;
  metric: string;
  entity?: string;
  source?: string;
  series: boolean;
  interval?: string;
  /** Row filters (crypto/options/chain only; the route refuses them on other metrics). */
  option_type?: 'call' | 'put';
  /** A UTC day YYYY-MM-DD: the options expiring on it. */
  expiry?: string;
  /** Cursor already verified and decoded by the route; the resolver never sees the opaque string. */
  cursor?: Record<string, unknown>;
  /** Now, as the resolver must see it (tests pin it). */
  now: Date;
}

export interface SourceRef {
  venue: string;
  ts: string;
  symbol?: string;
  /** Under replay: the original time of the row played at `ts`. */
  recorded_ts?: string;
}

/** Whether what was played is a real recording, a hand-written sample, or both parts of one answer. */
export type ReplayKind = 'recording' | 'sample' | 'mixed';

export interface ReplayNote {
  /** Markets or feeds played from a recording, e.g. 'binanceus:BTC-USD'. */
  recorded: string;
  kind: ReplayKind;
  /** The original time of the newest row or snapshot behind the answer. */
  recorded_at: string;
  /** The time that row is served as: the answer's as_of. */
  played_at: string;
  /** Said before the resolver's method (the market replay); a feed's method says it already. */
  method?: string;
  /** The original time of a played source's ts; undefined for a source that was not played. */
  recordedTs(source: SourceRef): string | undefined;
}

/** What a resolver answers; the route wraps it into the envelope and applies fields/format/truncation. */
export interface MetricAnswer {
  data: unknown;
  as_of: string;
  venues: string[];
  staleness_ms: number;
  confidence: number;
  sources: SourceRef[];
  method: string;
  /** Set when the answer rests on a replayed recording of a feed (the market replay's note is the route's). */
  replay?: ReplayNote;
  /** Venues left out of the answer and why (stale, outlier, quote conversion missing...). */
  excluded?: { venue: string; reason: string }[];
  /** For series: rows in order, and the cursor state to resume after the last one. */
  rows?: Record<string, unknown>[];
  /** Column names of the rows, in order (for fields and format=table). */
  columns?: string[];
  next_cursor_state?: Record<string, unknown> | null;
  /**
   * When max_response_tokens drops the oldest rows of a page: the cursor state that resumes strictly
   * before the given row (the oldest row kept). Without it a truncated page resumes at next_cursor_state.
   */
  resumeBefore?: (row: Record<string, unknown>) => Record<string, unknown>;
  /** How the answer ages with no new data; without it the answer is recomputed for every request. */
  ageing?: Ageing;
}

/** Refusal codes map to problems in http-kit: validation_failed, not_found, not_yet_available, ... */
export type MetricResolver<Ctx> = (
  ctx: Ctx,
  query: MetricQuery,
  hit: CatalogHit,
) => Promise<Result<MetricAnswer>>;
