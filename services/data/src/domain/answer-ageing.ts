import { agedAt, type AgeingConfidence } from '@meridian/contracts';
import type { ConfidenceInput } from './confidence.js';

/**
 * How a computed answer ages while its data does not change: the only fields that depend on the
 * request's instant are `staleness_ms` (now − asOf) and the confidence's freshness. A resolver says
 * so by giving its answer an Ageing; an answer without one is recomputed for every request.
 */
export interface Ageing {
  /** The newest data point's time (ms): staleness_ms = max(0, now − asOf). */
  asOf: number;
  /** The confidence's inputs but the age; a number is a confidence that does not age. */
  confidence: Omit<ConfidenceInput, 'staleness_ms'> | number;
  /**
   * The first instant (ms) at which the answer may change with no new data: a kept value turning
   * stale, a window dropping a point. Unset: only at a minute boundary (the bars' and windows' grain).
   */
  validUntil?: number;
}

export interface AgedFields {
  staleness_ms: number;
  confidence: number;
}

/**
 * The age-dependent fields of an answer at `now`, as its resolver would compute them: the
 * contracts' agedAt, the function a gateway keeping the answer applies too.
 */
export function agedFields(ageing: Ageing, now: number): AgedFields {
  return agedAt({ as_of: ageing.asOf, confidence: ageingConfidence(ageing) }, now);
}

/**
 * The confidence's recipe for a holder of the answer: confidence.ts's formula with its age-free
 * factors (sources × dispersion, multiplied in the same order) folded into `base`.
 */
export function ageingConfidence(ageing: Ageing): AgeingConfidence {
  const c = ageing.confidence;
  if (typeof c === 'number') return c;
  if (c.venues <= 0) return 0;
  const sources = 1 - 0.5 ** c.venues;
  const dispersion = Math.exp(-Math.max(0, c.dispersion) / 0.01);
  return { base: sources * dispersion, max_age_ms: c.max_age_ms };
}

const MINUTE_MS = 60_000;

/**
 * Until when (exclusive, ms) an answer computed at `computedAt` may be served again: the first of its
 * own validUntil, the next minute boundary (bars close and time windows move on minutes), and
 * `ttlMs` after it (the bound for a change another replica ingested, which this one is not told of).
 */
export function servableUntil(computedAt: number, ageing: Ageing, ttlMs: number): number {
  return Math.min(computedAt + ttlMs, minuteEnd(computedAt), ageing.validUntil ?? Infinity);
}

/**
 * The end (exclusive) of the minute an answer computed at `computedAt` may be served in. A window
 * bounded inclusively (ts >= now - span) drops its oldest bar, and a bar turns stale (age > max age),
 * 1 ms after a boundary: an answer computed on a boundary holds for that instant only.
 */
export function minuteEnd(computedAt: number): number {
  if (computedAt % MINUTE_MS === 0) return computedAt + 1;
  return Math.floor(computedAt / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
}
