import { ingestBatchSchema, type IngestBatchInput, type IngestSummary } from '@meridian/contracts';
import { readRecording, RECORDINGS, type Recording } from '../../adapters/parsers/recordings.js';
import { startPeriodic, type Periodic } from '@meridian/runtime';
import type { DataDeps } from '../../deps.js';
import { scaleBtcBatch } from '../../domain/feeds/btc-level.js';
import {
  replayShift,
  shiftBy,
  slotShift,
  type ReplayClock,
  type ReplayShift,
} from '../../domain/replay-clock.js';
import {
  deleteObservations,
  replayPlays,
  type ObservationKey,
} from '../../db/repositories/feeds-observations.js';
import { deleteDerivativeRows, type DerivativeRowKey } from '../../db/repositories/feeds-derivatives.js';
import { ingestOwn } from '../../flows/ingestor.js';
import { LEVEL_MARKET } from '../spot/market-replay.js';

/** The marker a replay leaves beside its data, so that answers can say they come from a replay. */
export const REPLAY_METRIC = 'replay';

export interface ReplayedRecording {
  file: string;
  source: string;
  shift: string;
  rows: number;
  inserted: number;
}

/** Where a recording is played at `now`: the current slot of its cadence, or whole days (months) back. */
export function shiftOf(recording: Recording, now: Date): ReplayShift {
  return recording.refreshMs
    ? slotShift(recording.recordedAt, now, recording.refreshMs)
    : replayShift(recording.recordedAt, now, recording.shift);
}

/**
 * The whole-day shift of a play of a recording whose calendar follows the replay day: the play's
 * instant less whole days, the same for every play of one day (recorded 23:22 UTC: a replay day runs
 * from 23:22 to 23:22). Undefined for every other recording.
 */
export function calendarOf(recording: Recording, clock: ReplayClock): ReplayShift | undefined {
  if (recording.calendar !== 'day') return undefined;
  return replayShift(recording.recordedAt, new Date(clock(recording.recordedAt)), 'day');
}

/** The replayed spot price at a wall instant (market-replay.ts), when the market replay plays. */
export type SpotAt = (wall: number) => number | undefined;

interface Scaling {
  factor: number;
  note: string;
}

/** The factor that takes the recording's BTC level to the replayed spot at the instant it is played at. */
function btcScaling(
  recording: Recording,
  text: string,
  clock: ReplayClock,
  spotAt?: SpotAt,
): Scaling | undefined {
  if (!recording.btcLevel || !spotAt) return undefined;
  const at = clock(recording.recordedAt);
  const spot = spotAt(Date.parse(at));
  const level = recording.btcLevel(text);
  if (spot === undefined || !(level > 0)) return undefined;
  const factor = spot / level;
  return {
    factor,
    note: `BTC prices scaled by ${factor.toFixed(4)} from the recorded ${level} USD to the replayed ${LEVEL_MARKET} close ${spot} USD at ${at}, so that they agree with the replayed spot (ratios, implied volatility, delta, basis and funding unchanged)`,
  };
}

/**
 * The batches of one recording, shifted to `now`, plus its replay marker. With `spotAt`, a
 * recording of BTC prices is scaled to the replayed spot level (domain/feeds/btc-level.ts).
 */
export function replayBatches(
  recording: Recording,
  text: string,
  now: Date,
  spotAt?: SpotAt,
): IngestBatchInput[] {
  return playBatches(recording, text, shiftOf(recording, now), spotAt);
}

/** The batches and the marker of one play of a recording at a given shift. */
function playBatches(
  recording: Recording,
  text: string,
  { clock, shift, months }: ReplayShift,
  spotAt?: SpotAt,
): IngestBatchInput[] {
  const calendar = calendarOf(recording, clock);
  const parsed = recording.parse(text, clock, calendar?.clock);
  // Scaled at the calendar's instant: one strike and one name per instrument for the replay day.
  const scaling = btcScaling(recording, text, calendar?.clock ?? clock, spotAt);
  const batches = [parsed].flat().map((b) => (scaling ? scaleBtcBatch(b, scaling.factor) : b));
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
          shift: calendar
            ? `${shift}; ${recording.calendarMaps ?? 'its calendar'} mapped once per replay day (${calendar.shift})`
            : shift,
          sample: recording.real ? 'real recorded data' : 'hand-written sample in the upstream format',
          real: recording.real,
          ...(months !== undefined ? { shift_months: months } : {}),
          ...(scaling ? { scaled: scaling.note } : {}),
        },
      },
    ],
  };
  return [...batches, marker];
}

/**
 * Ingests every recorded feed (everything but crypto/spot) through the one ingestion function,
 * shifted to the present, so that the service answers offline. With `spotAt` (the market replay's
 * level, main.ts), BTC prices are scaled to the replayed spot; without it, kept as recorded. Idempotent for the same `now`;
 * a later start adds the same recording at its new position in time. `fresh: false` leaves out the
 * feeds that age in minutes, which a start leaves to the refresh's first run (startRecordedFeeds).
 */
export async function loadRecordedFeeds(
  deps: DataDeps,
  now: Date,
  spotAt?: SpotAt,
  { fresh = true }: { fresh?: boolean } = {},
): Promise<ReplayedRecording[]> {
  const done: ReplayedRecording[] = [];
  for (const recording of RECORDINGS) {
    if (!fresh && recording.refreshMs) continue;
    const text = await readRecording(recording);
    let rows = 0;
    let inserted = 0;
    for (const input of replayBatches(recording, text, now, spotAt)) {
      const summary: IngestSummary = await ingestOwn(deps.ingestor, ingestBatchSchema.parse(input));
      rows += summary.received;
      inserted += summary.inserted;
    }
    const { shift } = shiftOf(recording, now);
    done.push({ file: recording.file, source: recording.source, shift, rows, inserted });
  }
  deps.logger.info({ recordings: done.length }, 'recorded feeds replayed');
  return done;
}

/** One play of a fresh feed's recording: the instant it landed at (its marker's ts) and its rows' keys. */
interface Play extends PlayedKeys {
  at: number;
}

/**
 * The last play of every fresh feed this process stored, by recording file: its slot (a feed whose
 * slot has not turned is not played again) and the keys that delete its rows once the next play
 * has landed, without parsing the recording a second time.
 */
export type Plays = Map<string, Play>;

/**
 * Plays the recordings of feeds that age in minutes (`refreshMs`) whose slot turned since their play
 * in `plays` (all of them when `plays` has none), then removes every other play of them (an earlier
 * slot, or a day-shifted play of an older build), so a scoreboard or a quake is stored once and
 * never counted twice. Answers the recordings played.
 */
export async function refreshFreshFeeds(
  deps: DataDeps,
  now: Date,
  spotAt?: SpotAt,
  plays: Plays = new Map(),
): Promise<string[]> {
  const played: string[] = [];
  for (const recording of RECORDINGS) {
    if (!recording.refreshMs) continue;
    const shift = shiftOf(recording, now);
    const at = Date.parse(shift.clock(recording.recordedAt));
    const earlier = plays.get(recording.file);
    if (earlier?.at === at) continue;
    const text = await readRecording(recording);
    const batches = playBatches(recording, text, shift, spotAt);
    for (const input of batches) await ingestOwn(deps.ingestor, ingestBatchSchema.parse(input));
    await removeOtherPlays(deps, recording, text, at, earlier, spotAt);
    plays.set(recording.file, { at, ...playedKeys(batches) });
    played.push(recording.file);
  }
  return played;
}

/** The keys of the rows a play of a recording stored: observations, and derivatives rows apart. */
interface PlayedKeys {
  observations: ObservationKey[];
  derivatives: DerivativeRowKey[];
}

function playedKeys(batches: IngestBatchInput[]): PlayedKeys {
  const observations: ObservationKey[] = [];
  const derivatives: DerivativeRowKey[] = [];
  for (const b of batches) {
    if (b.kind === 'observations')
      observations.push(...b.rows.map((r) => ({ key: r.key, metric: r.metric, ts: r.ts })));
    if (b.kind === 'option_marks')
      derivatives.push(
        ...b.rows.map((r) => ({ table: 'option_marks' as const, instrument: r.instrument, ts: r.ts })),
      );
    if (b.kind === 'funding' || b.kind === 'mark_prices') {
      const table = b.kind === 'funding' ? ('funding_rates' as const) : ('mark_prices' as const);
      derivatives.push(...b.rows.map((r) => ({ table, symbol: b.symbol, ts: r.ts })));
    }
  }
  return { observations, derivatives };
}

/**
 * Deletes the rows of every play of a recording but the one that landed at `keep`: the `earlier`
 * play this process stored by its keys; any other (a play of an earlier process or build) is
 * replayed in memory at its own instant (its marker) to name its rows, scaled alike.
 */
async function removeOtherPlays(
  deps: DataDeps,
  recording: Recording,
  text: string,
  keep: number,
  earlier: Play | undefined,
  spotAt?: SpotAt,
): Promise<void> {
  const recordedAt = Date.parse(recording.recordedAt);
  for (const at of await replayPlays(deps.db, recording.source, recording.file)) {
    if (at.getTime() === keep) continue;
    const { observations, derivatives } =
      earlier?.at === at.getTime()
        ? earlier
        : playedKeys(playBatches(recording, text, shiftBy(at.getTime() - recordedAt), spotAt));
    await deleteDerivativeRows(deps.db, recording.source, derivatives);
    await deleteObservations(deps.db, recording.source, observations);
  }
}

/**
 * The recorded feeds of a start: the day-shifted recordings loaded once, then the refresh, whose
 * first run plays each fresh feed at its slot and removes the plays of earlier processes. Each
 * recording is parsed once (the load played the fresh feeds too, and the refresh's first run, with
 * no plays of its own yet, played them all again). Resolves with the refresh once its first run is
 * over: from then on every recording has been played.
 */
export async function startRecordedFeeds(
  deps: DataDeps,
  spotAt: SpotAt,
  { now = Date.now, afterPlays }: RefreshOptions = {},
): Promise<Periodic> {
  await loadRecordedFeeds(deps, new Date(now()), spotAt, { fresh: false });
  const periodic = startFeedRefresh(deps, spotAt, { now, afterPlays });
  await periodic.settled();
  return periodic;
}

interface RefreshOptions {
  now?: () => number;
  /** Called after a run that played at least one feed (main.ts: the idle-time compaction). */
  afterPlays?: () => void;
}

/**
 * Plays each fresh feed again when its slot turns (checked every 15 s), so an answer stays as fresh
 * as the recorded data was when it was recorded (docs/decisions.md, "Replay"); the first run plays them all.
 */
export function startFeedRefresh(
  deps: DataDeps,
  spotAt: SpotAt,
  { now = Date.now, afterPlays }: RefreshOptions = {},
) {
  const plays: Plays = new Map();
  const tick = async (): Promise<void> => {
    const played = await refreshFreshFeeds(deps, new Date(now()), spotAt, plays);
    if (played.length > 0) afterPlays?.();
  };
  return startPeriodic(tick, 15_000, (err) =>
    deps.logger.error({ err }, 'feed refresh failed; retrying at the next tick'),
  );
}
