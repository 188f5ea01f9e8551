import type { IngestBatchInput } from '@meridian/contracts';
import type { ReplayClock } from '../replay-clock.js';

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

interface EspnStatus {
  type: { state: 'pre' | 'in' | 'post'; completed: boolean; detail: string };
}
interface EspnCompetitor {
  homeAway: 'home' | 'away';
  team?: { displayName: string };
  athlete?: { displayName: string };
  score?: string;
  linescores?: { value: number }[];
}
interface EspnCompetition {
  id: string;
  date: string;
  competitors: EspnCompetitor[];
  status: EspnStatus;
}
interface EspnScoreboard {
  events: {
    id: string;
    date: string;
    competitions?: EspnCompetition[];
    groupings?: { competitions: EspnCompetition[] }[];
  }[];
}

/** ESPN's state: pre (scheduled), in (in progress), post (final; also postponed games that have no score). */
export function espnStatus(status: EspnStatus): SportStatus {
  if (status.type.state === 'in') return 'in_progress';
  if (status.type.state === 'post' && status.type.completed) return 'final';
  return 'scheduled';
}

/** Sets won (tennis has no running score field): only completed sets count, 6-4, 7-5, 7-6. */
export function setsWon(mine: { value: number }[] = [], theirs: { value: number }[] = []): number {
  return mine.filter((s, i) => {
    const other = theirs[i]?.value ?? 0;
    const complete =
      (Math.max(s.value, other) >= 6 && Math.abs(s.value - other) >= 2) || Math.max(s.value, other) === 7;
    return complete && s.value > other;
  }).length;
}

/**
 * ESPN site API scoreboard (site.api.espn.com/apis/site/v2/sports/<sport>/<league>/scoreboard):
 * team sports carry competitions with a `score`; tennis nests matches under groupings, scored
 * here in sets won. Each game becomes one observation per snapshot, keyed league:id.
 */
export function parseEspnScoreboard(
  text: string,
  sport: string,
  league: string,
  recordedAt: string,
  clock: ReplayClock,
): IngestBatchInput {
  const doc = JSON.parse(text) as EspnScoreboard;
  const competitions = doc.events.flatMap((e) => [
    ...(e.competitions ?? []),
    ...(e.groupings ?? []).flatMap((g) => g.competitions),
  ]);
  const ts = clock(recordedAt);
  const rows = competitions.map((c) => {
    const event = toEvent(c, sport, league, clock);
    return { key: `${league}:${c.id}`, metric: `${sport}_event`, ts, value: null, payload: { ...event } };
  });
  return { kind: 'observations', source: 'espn', rows };
}

function toEvent(c: EspnCompetition, sport: string, league: string, clock: ReplayClock): SportEvent {
  const home = c.competitors.find((x) => x.homeAway === 'home')!;
  const away = c.competitors.find((x) => x.homeAway === 'away')!;
  const status = espnStatus(c.status);
  const score = (me: EspnCompetitor, other: EspnCompetitor) =>
    me.score !== undefined ? Number(me.score) : setsWon(me.linescores, other.linescores);
  return {
    sport,
    league,
    event_id: c.id,
    home: home.team?.displayName ?? home.athlete?.displayName ?? '',
    away: away.team?.displayName ?? away.athlete?.displayName ?? '',
    home_score: status === 'scheduled' ? 0 : score(home, away),
    away_score: status === 'scheduled' ? 0 : score(away, home),
    status,
    start_time: clock(c.date),
    detail: c.status.type.detail,
  };
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
    .sort((a, b) => b.start_time.localeCompare(a.start_time) || a.event_id.localeCompare(b.event_id));
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
    .sort((a, b) => a.start_time.localeCompare(b.start_time) || a.event_id.localeCompare(b.event_id))
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
