/*
 * Seam between the core resolver (routes, spot) and the feeds (src/domain/feeds/index.ts exports
 * `feedResolvers: Record<'category/product/metric', MetricResolver<Deps>>` and `demoSnapshot`).
 *
 * For the feeds engineer, from the core:
 * - Writing data: `ingest(db, batch)` in src/ingest/ingest.ts (batch schema `ingestBatchSchema` in
 *   @meridian/contracts, kinds candles | trades | option_marks | funding | mark_prices | observations;
 *   idempotent on (source, key, ts)). The same function serves NATS `RPC.dataIngest`.
 * - Spot reference price for futures basis: pure `referencePrice(entity, quotes, nowMs)` in
 *   src/domain/spot/reference-price.ts, the query `latestMarketQuotes(db, base, at, windowMs)` and the
 *   convenience `loadReferencePrice(db, 'BTC-USD', now)` in src/db/repositories/candles.ts.
 * - Confidence: `confidence({venues, dispersion, staleness_ms, max_age_ms})` in src/domain/confidence.ts
 *   (the one documented formula; please use it so every metric scores alike).
 * - Tables: src/db/database.ts (observations.value is numeric → string on read; Number() it).
 */
import type { CatalogHit } from '@meridian/contracts';
import type { Result } from '@meridian/contracts';

/** One data-endpoint query after parsing (data-api-interface 4.1). */
export interface MetricQuery {
  category: string;
  product: string;
  metric: string;
  entity?: string;
  source?: string;
  series: boolean;
  interval?: string;
  /** Cursor already verified and decoded by the route; the resolver never sees the opaque string. */
  cursor?: Record<string, unknown>;
  /** Now, as the resolver must see it (tests pin it). */
  now: Date;
}

export interface SourceRef {
  venue: string;
  ts: string;
  symbol?: string;
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
}

/** Refusal codes map to problems in http-kit: validation_failed, not_found, not_yet_available, ... */
export type MetricResolver<Ctx> = (
  ctx: Ctx,
  query: MetricQuery,
  hit: CatalogHit,
) => Promise<Result<MetricAnswer>>;
