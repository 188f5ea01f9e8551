import { ok } from '@meridian/contracts';
import { latestPerKey } from '../../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../../deps.js';
import {
  gamePositionOf,
  gameRow,
  gamesFor,
  seriesGames,
  SPORTS_RULES,
  type SportEvent,
} from '../../../domain/feeds/sports.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { DAY, entityOf, feedAnswer, iso, noData, sourceOf } from '../feed-answer.js';

/** series=true reaches back this far for "recent played games". */
export const RECENT_GAMES_WINDOW_MS = 7 * DAY;

/** The newest stored state of every game of a sport (one league, or every league of the product). */
export async function sportEvents(deps: DataDeps, sport: string, leagues: string[], now: Date) {
  const lists = await Promise.all(
    leagues.map((league) => latestPerKey(deps.db, `${sport}_event`, now, `${league}:`)),
  );
  return lists.flat().map((o) => ({ event: o.payload as unknown as SportEvent, ts: o.ts }));
}

function sportsResolver(sport: string, metric: string): MetricResolver<DataDeps> {
  const rule = SPORTS_RULES[metric]!;
  return async (deps, query, hit) => {
    const entity = entityOf(query, hit);
    if (!entity.ok) return entity;
    const source = sourceOf(query, hit);
    if (!source.ok) return source;
    const leagues = entity.value ? [entity.value] : hit.product.entities;
    let stored = await sportEvents(deps, sport, leagues, query.now);
    if (stored.length === 0) return noData(`${sport} (${leagues.join(', ')})`);
    const asOf = new Date(Math.max(...stored.map((s) => s.ts.getTime())));
    if (query.series)
      stored = stored.filter(
        (s) => query.now.getTime() - Date.parse(s.event.start_time) <= RECENT_GAMES_WINDOW_MS,
      );
    else {
      // The current scoreboard: the newest snapshot of each league.
      const newestOf = new Map<string, number>();
      for (const s of stored)
        newestOf.set(s.event.league, Math.max(newestOf.get(s.event.league) ?? 0, s.ts.getTime()));
      stored = stored.filter((s) => s.ts.getTime() === newestOf.get(s.event.league));
    }
    const chosen = gamesFor(
      metric,
      stored.map((s) => s.event),
    );
    const games = (query.series ? seriesGames(chosen, gamePositionOf(query.cursor)) : chosen).map(gameRow);
    const method =
      `ESPN scoreboard snapshots of ${leagues.join(', ')}; ${query.metric} answers ${rule.words}. ` +
      (sport === 'tennis' ? 'Tennis scores are completed sets won. ' : '') +
      (query.series
        ? `Series: recent played games, every game whose start is within ${RECENT_GAMES_WINDOW_MS / DAY} days, in its newest stored state, ascending by start (event id breaks ties).`
        : 'The newest scoreboard of each league.');
    return ok(
      await feedAnswer(deps, {
        data: query.series ? games : { sport, leagues, games },
        ...(query.series
          ? {
              rows: games,
              nextCursor: null,
              resumeBefore: (row) => ({ start_time: row.start_time, event: row.event }),
            }
          : {}),
        now: query.now,
        // A recent game leaves the series once its start is older than the window.
        ...(query.series ? { validUntil: leavesWindow(stored.map((s) => s.event)) } : {}),
        asOf,
        sources: leagues.map((l) => ({ venue: 'espn', ts: iso(asOf), symbol: l })),
        method,
        hit,
        replay: { source: 'espn', file: sport === 'football' ? 'soccer' : sport },
      }),
    );
  };
}

function leavesWindow(events: { start_time: string }[]): number {
  return Math.min(...events.map((e) => Date.parse(e.start_time))) + RECENT_GAMES_WINDOW_MS + 1;
}

export const sportsResolvers: Record<string, MetricResolver<DataDeps>> = {
  'sports/tennis/match_result': sportsResolver('tennis', 'match_result'),
  'sports/tennis/live_score': sportsResolver('tennis', 'live_score'),
  'sports/football/match_result': sportsResolver('football', 'match_result'),
  'sports/football/live_score': sportsResolver('football', 'live_score'),
  'sports/basketball/match_result': sportsResolver('basketball', 'match_result'),
  'sports/basketball/box_score': sportsResolver('basketball', 'box_score'),
  'sports/basketball/live_score': sportsResolver('basketball', 'live_score'),
};
