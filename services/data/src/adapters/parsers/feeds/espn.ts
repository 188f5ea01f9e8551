import type { IngestBatchInput } from '@meridian/contracts';
import { replayedGame, type SportEvent, type SportStatus } from '../../../domain/feeds/sports.js';
import { recordedTime, type ReplayClock } from '../../../domain/replay-clock.js';

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
 * here in sets won. Each game becomes one observation per snapshot, keyed league:id. With a
 * `calendar` (a replay: the whole-day shift of the play), each game is the one its replay day plays
 * at the play's instant (`replayedGame`), so its start holds all day; without, games are as recorded.
 */
export function parseEspnScoreboard(
  text: string,
  sport: string,
  league: string,
  recordedAt: string,
  clock: ReplayClock,
  calendar?: ReplayClock,
): IngestBatchInput {
  const doc = JSON.parse(text) as EspnScoreboard;
  const competitions = doc.events.flatMap((e) => [
    ...(e.competitions ?? []),
    ...(e.groupings ?? []).flatMap((g) => g.competitions),
  ]);
  const ts = clock(recordedAt);
  const play = calendar && {
    snapshotAt: new Date(calendar(recordedAt)),
    dayShiftMs: Date.parse(calendar(recordedAt)) - Date.parse(recordedAt),
    at: new Date(ts),
  };
  const events = competitions.flatMap((c) => {
    const event = play
      ? replayedGame(toEvent(c, sport, league, recordedTime), play)
      : toEvent(c, sport, league, clock);
    return event ? [event] : [];
  });
  const rows = events.map((event) => ({
    key: `${league}:${event.event_id}`,
    metric: `${sport}_event`,
    ts,
    value: null,
    payload: { ...event },
  }));
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
