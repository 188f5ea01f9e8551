/**
 * meta.confidence (data-api-interface 2.1), the same formula for every metric:
 *
 *   confidence = sources × dispersion × freshness, rounded to 3 decimals, where
 *   sources    = 1 - 0.5^n          n = distinct venues behind the answer (1 → 0.5, 2 → 0.75, 3 → 0.875)
 *   dispersion = exp(-d / 0.01)     d = median absolute deviation of the venue values over their median
 *                                   (0 for a single source; 0.1 % → 0.90, 1 % → 0.37)
 *   freshness  = exp(-age / maxAge) age = staleness_ms, maxAge = the metric's max_age_ms in the catalogue:
 *                                   the age past which its newest value is overdue, and a spot or
 *                                   futures venue is dropped as stale (a value that old → 0.37)
 */
export interface ConfidenceInput {
  venues: number;
  /** Relative dispersion of the venue values (MAD / median); 0 when there is one value. */
  dispersion: number;
  staleness_ms: number;
  max_age_ms: number;
}

export function confidence(input: ConfidenceInput): number {
  if (input.venues <= 0) return 0;
  const sources = 1 - 0.5 ** input.venues;
  const dispersion = Math.exp(-Math.max(0, input.dispersion) / 0.01);
  const freshness = Math.exp(-Math.max(0, input.staleness_ms) / Math.max(1, input.max_age_ms));
  return Math.round(sources * dispersion * freshness * 1000) / 1000;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median absolute deviation over the median: 0 for one value. */
export function relativeDispersion(values: number[]): number {
  if (values.length < 2) return 0;
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m))) / m;
}

/**
 * meta.confidence of an answer made of several parts (the demo snapshot): its weakest part, halved
 * for each part that could not be answered. Never above a part's own score, so a snapshot with an
 * hours-old part never says 1.
 */
export function combinedConfidence(parts: number[], missing: number): number {
  if (parts.length === 0) return 0;
  return Math.round(Math.min(...parts) * 0.5 ** missing * 1000) / 1000;
}
