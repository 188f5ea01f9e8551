import { byCodeUnits } from '@meridian/contracts';

export type SportStatus = 'scheduled' | 'in_progress' | 'final';

/** One game as the sports metrics answer it (the demo's event shape, data 2.2). */
export interface SportEvent {
  sport: string;
  league: string;
  event_id: string;
  home: string;
  away: string;
  home_score: number;
  away_score: number;
  status: SportStatus;
  start_time: string;
  detail: string;
}

/** Which games a sports metric answers (data 4.2). */
export const SPORTS_RULES: Record<string, { statuses: SportStatus[]; words: string }> = {
  match_result: { statuses: ['final'], words: 'finals only' },
  live_score: { statuses: ['in_progress'], words: 'in-progress games only' },
  box_score: { statuses: ['in_progress', 'final'], words: 'any played game (in progress or final)' },
};

/** The games a metric answers, newest start first. */
export function gamesFor(metric: string, events: SportEvent[]): SportEvent[] {
  const rule = SPORTS_RULES[metric];
  if (!rule) return [];
  return events
    .filter((e) => rule.statuses.includes(e.status))
    .sort((a, b) => byCodeUnits(b.start_time, a.start_time) || byCodeUnits(a.event_id, b.event_id));
}

/** Where a series of games resumes: strictly before this (start_time, event) in ascending order. */
export interface GamePosition {
  start_time: string;
  event: string;
}

export function gamePositionOf(state: Record<string, unknown> | undefined): GamePosition | undefined {
  return typeof state?.start_time === 'string' && typeof state.event === 'string'
    ? { start_time: state.start_time, event: state.event }
    : undefined;
}

/**
 * The games of a series answer, ascending by start (event id breaks ties) like every series, and only
 * those strictly before `before` when a truncated answer's cursor resumes.
 */
export function seriesGames(games: SportEvent[], before: GamePosition | undefined): SportEvent[] {
  const key = (start: string, event: string) => [start, event] as const;
  const lt = (a: readonly [string, string], b: readonly [string, string]) =>
    a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  return [...games]
    .sort((a, b) => byCodeUnits(a.start_time, b.start_time) || byCodeUnits(a.event_id, b.event_id))
    .filter((g) => !before || lt(key(g.start_time, g.event_id), key(before.start_time, before.event)));
}

/** The answer's row for one game: the spec's event shape without the internal detail line. */
export function gameRow(e: SportEvent) {
  return {
    event: e.event_id,
    sport: e.sport,
    league: e.league,
    home: e.home,
    away: e.away,
    home_score: e.home_score,
    away_score: e.away_score,
    status: e.status,
    start_time: e.start_time,
    detail: e.detail,
  };
}

/**
 * Whether a stored event's status still holds at `now`: a game "scheduled" to start before now has
 * started or been called off since its snapshot, so it is no longer shown as scheduled.
 */
export function statusHolds(event: Pick<SportEvent, 'status' | 'start_time'>, now: Date): boolean {
  return event.status !== 'scheduled' || Date.parse(event.start_time) > now.getTime();
}

const DAY_MS = 86_400_000;

/** Where one play of a recorded scoreboard lands on the replay calendar. */
export interface ScoreboardPlay {
  /** The snapshot's instant on the replay calendar: the recorded instant moved by whole days. */
  snapshotAt: Date;
  /** The whole days the recording moved (its replay day's shift). */
  dayShiftMs: number;
  /** The instant of the play: the state of each game is the one it holds then. */
  at: Date;
}

/**
 * A recorded game as a replay day plays it. Its start moves by the replay day's whole days only, so it
 * holds all day, and its id names that day (a game of the next replay day is another game). A game the
 * snapshot shows scheduled is scheduled until its start, then leaves the board (no result was
 * recorded); a final one is final with its recorded score (it ended before the snapshot, and a replay
 * day starts at the snapshot); one in progress has a single recorded snapshot, so it is served in
 * progress with that snapshot's score and clock, its detail naming the snapshot, until a day after its
 * start, when it leaves the board: no game plays a day, and since it started before the snapshot it has
 * left before the seam, so the next replay day's copy never follows it with the same score and a start
 * a day later. Undefined when the game is not on the board at `at`.
 */
export function replayedGame(recorded: SportEvent, play: ScoreboardPlay): SportEvent | undefined {
  const start = Date.parse(recorded.start_time) + play.dayShiftMs;
  const at = play.at.getTime();
  const day = play.snapshotAt.toISOString().slice(0, 10).replaceAll('-', '');
  const game = {
    ...recorded,
    event_id: `${recorded.event_id}-${day}`,
    start_time: new Date(start).toISOString(),
  };
  if (recorded.status === 'scheduled')
    return start > at ? { ...game, home_score: 0, away_score: 0, detail: 'Scheduled' } : undefined;
  if (recorded.status === 'final') return game;
  if (at >= start + DAY_MS) return undefined;
  return {
    ...game,
    detail: `${recorded.detail} (the recording's only snapshot, played at ${play.snapshotAt.toISOString()}: score and clock do not advance)`,
  };
}
