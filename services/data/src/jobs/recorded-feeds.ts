import { ingestBatchSchema, type IngestBatchInput, type IngestSummary } from '@meridian/contracts';
import { readRecording, RECORDINGS, type Recording } from '../adapters/upstream/recordings.js';
import type { DataDeps } from '../deps.js';
import { replayShift } from '../domain/replay-clock.js';
import { ingestOwn } from '../flows/ingestor.js';

/** The marker a replay leaves beside its data, so that answers can say they come from a replay. */
export const REPLAY_METRIC = 'replay';

export interface ReplayedRecording {
  file: string;
  source: string;
  shift: string;
  rows: number;
  inserted: number;
}

/** The batches of one recording, shifted to `now`, plus its replay marker. */
export function replayBatches(recording: Recording, text: string, now: Date): IngestBatchInput[] {
  const { clock, shift } = replayShift(recording.recordedAt, now, recording.shift);
  const parsed = recording.parse(text, clock);
  const batches = Array.isArray(parsed) ? parsed : [parsed];
  const marker: IngestBatchInput = {
    kind: 'observations',
    source: recording.source,
    rows: [
      {
        key: recording.file,
        metric: REPLAY_METRIC,
        ts: clock(recording.recordedAt),
        value: null,
        payload: {
          file: `services/data/recordings/${recording.file}`,
          recorded_at: recording.recordedAt,
          shift,
          sample: recording.real ? 'real recorded data' : 'hand-written sample in the upstream format',
        },
      },
    ],
  };
  return [...batches, marker];
}

/**
 * Ingests every recorded feed (everything but crypto/spot) through the one ingestion function,
 * shifted to the present, so that the service answers offline. Idempotent for the same `now`;
 * a later start adds the same recording at its new position in time.
 */
export async function loadRecordedFeeds(deps: DataDeps, now: Date): Promise<ReplayedRecording[]> {
  const done: ReplayedRecording[] = [];
  for (const recording of RECORDINGS) {
    const text = await readRecording(recording);
    let rows = 0;
    let inserted = 0;
    for (const input of replayBatches(recording, text, now)) {
      const summary: IngestSummary = await ingestOwn(deps.ingestor, ingestBatchSchema.parse(input));
      rows += summary.received;
      inserted += summary.inserted;
    }
    const { shift } = replayShift(recording.recordedAt, now, recording.shift);
    done.push({ file: recording.file, source: recording.source, shift, rows, inserted });
  }
  deps.logger.info({ recordings: done.length }, 'recorded feeds replayed');
  return done;
}
