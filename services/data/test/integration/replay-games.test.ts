import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { callerHeaders } from '@meridian/http-kit/testing';
import type { gameRow } from '../../src/domain/feeds/sports.js';
import { replayedSpotAt } from '../../src/jobs/spot/market-replay.js';
import { refreshFreshFeeds, type Plays } from '../../src/jobs/feeds/recorded-feeds.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';

/** A game as the sports metrics answer it. */
type Game = ReturnType<typeof gameRow>;

const SPORTS_READS = [
  'basketball/live_score',
  'basketball/box_score',
  'basketball/match_result',
  'football/live_score',
  'football/match_result',
  'tennis/live_score',
  'tennis/match_result',
];

/**
 * Reads minutes apart at fixed instants of one replayed day, over HTTP on the service's clock: around
 * each scoreboard's seam (NBA recorded 02:50 UTC, football 16:22, tennis 20:30), at midday and at
 * midnight. Each instant plays the fresh feeds as the refresh does, then reads every sports metric.
 */
const INSTANTS = [
  '2026-12-14T00:58:00Z',
  '2026-12-14T01:01:00Z',
  '2026-12-14T02:47:00Z',
  '2026-12-14T02:49:00Z',
  '2026-12-14T02:50:00Z',
  '2026-12-14T02:53:00Z',
  '2026-12-14T12:00:00Z',
  '2026-12-14T12:04:00Z',
  '2026-12-14T16:20:00Z',
  '2026-12-14T16:22:00Z',
  '2026-12-14T16:25:00Z',
  '2026-12-14T20:28:00Z',
  '2026-12-14T20:30:00Z',
  '2026-12-14T20:33:00Z',
  '2026-12-14T23:59:00Z',
  '2026-12-15T00:01:00Z',
];

describe('replayed games move like real ones', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;
  let clock = Date.parse(INSTANTS[0]!);
  const plays: Plays = new Map();
  /** Every read's games, by instant. */
  const boards = new Map<string, Game[]>();

  beforeAll(async () => {
    db = await migratedDatabase('data_replay_games');
    const deps = testDeps(db, { INGEST_MODE: 'replay' }, () => clock);
    deps.firstLoad.settle();
    app = testApp(deps);
    headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_rg',
      key_id: 'key_rg',
    });
    for (const at of INSTANTS) {
      clock = Date.parse(at);
      await refreshFreshFeeds(deps, new Date(clock), replayedSpotAt(), plays);
      const games: Game[] = [];
      for (const path of SPORTS_READS) {
        const res = await request(app).get(`/v1/data/sports/${path}`).set(headers);
        expect([at, path, res.status]).toEqual([at, path, 200]);
        games.push(...(res.body.data.games as Game[]));
      }
      boards.set(at, games);
    }
  });
  afterAll(() => db.drop());

  it('never shows a game with the same score in progress and another start, in two reads minutes apart', () => {
    const teams = (g: Game) => `${g.league} ${g.home} v ${g.away}`;
    const frozen = (g: Game) => `${g.status} ${g.home_score}-${g.away_score} ${g.detail.split(' (')[0]}`;
    const problems: string[] = [];
    for (let i = 1; i < INSTANTS.length; i++) {
      const [before, after] = [boards.get(INSTANTS[i - 1]!)!, boards.get(INSTANTS[i]!)!];
      if (Date.parse(INSTANTS[i]!) - Date.parse(INSTANTS[i - 1]!) > 10 * 60_000) continue;
      for (const g of after.filter((x) => x.status === 'in_progress')) {
        const moved = before.find(
          (b) => teams(b) === teams(g) && frozen(b) === frozen(g) && b.start_time !== g.start_time,
        );
        if (moved)
          problems.push(
            `${INSTANTS[i]}: ${teams(g)} ${frozen(g)} from ${moved.start_time} to ${g.start_time}`,
          );
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps an event at one start time however often it is read, and never shows one in progress before it', () => {
    const starts = new Map<string, Set<string>>();
    for (const [at, games] of boards)
      for (const g of games) {
        starts.set(g.event, (starts.get(g.event) ?? new Set()).add(g.start_time));
        expect([at, g.event, Date.parse(g.start_time) <= Date.parse(at)]).toEqual([at, g.event, true]);
        if (g.status === 'in_progress') expect(g.detail).toMatch(/recording's only snapshot, played at/);
      }
    expect([...starts].filter(([, s]) => s.size > 1)).toEqual([]);
    expect(starts.size).toBeGreaterThan(8);
  });

  it('answers live_score with games in progress at midday, and finals with their recorded scores', () => {
    const noon = boards.get('2026-12-14T12:00:00Z')!;
    const live = noon.filter((g) => g.status === 'in_progress');
    expect(new Set(live.map((g) => g.league))).toEqual(new Set(['nba', 'eng.1', 'atp']));
    expect(noon).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          home: 'New York Knicks',
          home_score: 123,
          away_score: 124,
          status: 'final',
        }),
        expect.objectContaining({ home: 'Manchester City', home_score: 2, away_score: 2, status: 'final' }),
      ]),
    );
  });
});
