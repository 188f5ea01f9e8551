import type { MetricAnswer } from './metric-resolver.js';

/** What the route adds to a series answer after fields, format and truncation. */
export interface SeriesMeta {
  has_more: boolean;
  next_cursor: string | null;
  truncated: boolean;
  returned: number;
  hint?: string;
}

export interface ReplayNote {
  /** Markets or feeds played from a recording, e.g. 'binanceus:BTC-USD'. */
  recorded: string;
  method: string;
}

/**
 * The envelope of data-api-interface 2.1 around a resolver's answer. Excluded venues and why go to
 * provenance.excluded (always present, possibly empty); an answer built from replayed recordings
 * says so in meta.replay and at the start of provenance.method.
 */
export function metricEnvelope(
  answer: MetricAnswer,
  data: unknown,
  series?: SeriesMeta,
  replay?: ReplayNote,
) {
  return {
    data,
    meta: {
      as_of: answer.as_of,
      venues: answer.venues,
      staleness_ms: Math.max(0, Math.round(answer.staleness_ms)),
      confidence: answer.confidence,
      ...(series ?? {}),
      ...(replay ? { replay: { recorded: replay.recorded, live: false } } : {}),
    },
    provenance: {
      sources: answer.sources,
      method: replay ? `${replay.method} ${answer.method}` : answer.method,
      excluded: answer.excluded ?? [],
    },
  };
}
