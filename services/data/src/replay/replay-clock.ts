/**
 * Maps wall-clock time onto a looped recording: wall time w plays recorded time
 * start + (w mod span), in loop floor(w / span). The mapping depends on the wall clock only, so a
 * restart replays exactly the rows it stored before (idempotent ingestion sees nothing new), and a
 * span that is a whole number of days keeps UTC day boundaries where they were.
 */
export interface LoopedRecording {
  start: number;
  spanMs: number;
}

/** Rows (ascending by ts, recorded times) whose shifted time falls in [wallFrom, wallTo), shifted. */
export function shiftedRange<T extends { ts: number }>(
  rec: LoopedRecording,
  rows: T[],
  wallFrom: number,
  wallTo: number,
): T[] {
  const out: T[] = [];
  for (let loop = Math.floor(wallFrom / rec.spanMs); loop * rec.spanMs < wallTo; loop++) {
    const loopStart = loop * rec.spanMs;
    const from = Math.max(wallFrom, loopStart) - loopStart + rec.start;
    const to = Math.min(wallTo, loopStart + rec.spanMs) - loopStart + rec.start;
    for (let i = lowerBound(rows, from); i < rows.length && rows[i]!.ts < to; i++)
      out.push({ ...rows[i]!, ts: rows[i]!.ts - rec.start + loopStart });
  }
  return out;
}

function lowerBound(rows: { ts: number }[], ts: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.ts < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
