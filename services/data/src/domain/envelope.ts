import type { MetricAnswer, ReplayKind, ReplayNote, SourceRef } from './metric-resolver.js';

/** What the route adds to a series answer after fields, format and truncation. */
export interface SeriesMeta {
  has_more: boolean;
  next_cursor: string | null;
  truncated: boolean;
  returned: number;
  hint?: string;
}

const kindOf = (kinds: ReplayKind[]): ReplayKind =>
  kinds.every((k) => k === kinds[0]) ? kinds[0]! : 'mixed';

/**
 * One note for an answer resting on several replays (the basis: perps and spot): every part named,
 * the recorded time of the part played latest (a spot print beside a perp mark of the same minute).
 */
export function mergeReplayNotes(...notes: (ReplayNote | undefined)[]): ReplayNote | undefined {
  const all = notes.filter((n): n is ReplayNote => n !== undefined);
  if (all.length <= 1) return all[0];
  const newest = all.reduce((a, b) => (b.recorded_at > a.recorded_at ? b : a));
  const methods = all.map((n) => n.method).filter((m): m is string => m !== undefined);
  return {
    recorded: all.map((n) => n.recorded).join(', '),
    kind: kindOf(all.map((n) => n.kind)),
    recorded_at: newest.recorded_at,
    played_at: newest.played_at,
    ...(methods.length > 0 ? { method: methods.join(' ') } : {}),
    recordedTs: (s) => all.map((n) => n.recordedTs(s)).find((t) => t !== undefined),
  };
}

/**
 * The envelope of data-api-interface 2.1 around a resolver's answer. Excluded venues and why go to
 * provenance.excluded (always present, possibly empty); an answer built from replayed recordings
 * says so in meta.replay (what, a recording or a sample, recorded when, played as when), in each
 * played source's `recorded_ts` beside its shifted `ts`, and in provenance.method.
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
      ...(replay ? { replay: replayMeta(replay) } : {}),
    },
    provenance: {
      sources: replay ? answer.sources.map((s) => withRecordedTs(s, replay)) : answer.sources,
      method: replay?.method ? `${replay.method} ${answer.method}` : answer.method,
      excluded: answer.excluded ?? [],
    },
  };
}

function replayMeta(note: ReplayNote) {
  return {
    live: false,
    recorded: note.recorded,
    kind: note.kind,
    recorded_at: note.recorded_at,
    played_at: note.played_at,
  };
}

function withRecordedTs(source: SourceRef, note: ReplayNote): SourceRef {
  const recorded = note.recordedTs(source);
  return recorded === undefined ? source : { ...source, recorded_ts: recorded };
}
