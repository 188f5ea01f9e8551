import { describe, expect, it } from '@jest/globals';
import { readRecording, RECORDINGS } from '../../src/adapters/parsers/recordings.js';
import { replayedGame, type SportEvent } from '../../src/domain/feeds/sports.js';
import { replayBatches } from '../../src/jobs/feeds/recorded-feeds.js';

const DAY = 86_400_000;

const recorded = (
  event_id: string,
  status: SportEvent['status'],
  start: string,
  detail: string,
): SportEvent => ({
  sport: 'basketball',
  league: 'nba',
  event_id,
  home: 'Home',
  away: 'Away',
  home_score: status === 'scheduled' ? 0 : 81,
  away_score: status === 'scheduled' ? 0 : 78,
  status,
  start_time: start,
  detail,
});

/** A snapshot recorded 2024-11-14 02:50 UTC, played on the replay day that starts 2026-12-14 02:50 UTC. */
const SNAPSHOT = '2024-11-14T02:50:00Z';
const SHIFT = Date.parse('2026-12-14T02:50:00Z') - Date.parse(SNAPSHOT);
const playAt = (at: string) => ({
  snapshotAt: new Date(Date.parse(SNAPSHOT) + SHIFT),
  dayShiftMs: SHIFT,
  at: new Date(at),
});

describe('a recorded game on its replay day', () => {
  const scheduled = recorded('5', 'scheduled', '2024-11-14T03:00:00Z', 'Sat, November 14th at 10:00 PM EST');
  const final = recorded('1', 'final', '2024-11-14T00:00:00Z', 'Final');
  const live = recorded('3', 'in_progress', '2024-11-14T01:00:00Z', '6:52 - 3rd Quarter');

  it('is scheduled before its start, at the start the replay day gives it, and leaves the board from it', () => {
    expect(replayedGame(scheduled, playAt('2026-12-14T02:55:00Z'))).toMatchObject({
      event_id: '5-20261214',
      status: 'scheduled',
      start_time: '2026-12-14T03:00:00.000Z',
      home_score: 0,
      away_score: 0,
      detail: 'Scheduled',
    });
    expect(replayedGame(scheduled, playAt('2026-12-14T03:00:00Z'))).toBeUndefined();
    expect(replayedGame(scheduled, playAt('2026-12-15T02:49:00Z'))).toBeUndefined();
  });

  it('is final with its recorded score all its replay day, its start fixed', () => {
    for (const at of ['2026-12-14T02:50:00Z', '2026-12-14T14:00:00Z', '2026-12-15T02:49:59Z'])
      expect(replayedGame(final, playAt(at))).toEqual({
        ...final,
        event_id: '1-20261214',
        start_time: '2026-12-14T00:00:00.000Z',
      });
  });

  it('in progress, keeps its one snapshot, said to be the recorded one, and its start, until a day after its start', () => {
    const early = replayedGame(live, playAt('2026-12-14T02:51:00Z'));
    const late = replayedGame(live, playAt('2026-12-15T00:59:00Z'));
    expect(early).toEqual({
      ...live,
      event_id: '3-20261214',
      start_time: '2026-12-14T01:00:00.000Z',
      detail:
        "6:52 - 3rd Quarter (the recording's only snapshot, played at 2026-12-14T02:50:00.000Z: score and clock do not advance)",
    });
    expect(late).toEqual(early);
    expect(replayedGame(live, playAt('2026-12-15T01:00:00Z'))).toBeUndefined();
    expect(replayedGame(live, playAt('2026-12-15T02:49:00Z'))).toBeUndefined();
  });
});

describe('the NBA scoreboard played across its replay day', () => {
  const nba = RECORDINGS.find((r) => r.file.startsWith('espn/basketball_nba'))!;

  async function boardAt(at: string): Promise<SportEvent[]> {
    const text = await readRecording(nba);
    const [games] = replayBatches(nba, text, new Date(at));
    if (games?.kind !== 'observations') throw new Error('a scoreboard plays observations');
    return games.rows.map((r) => r.payload as unknown as SportEvent);
  }
  const byId = (games: SportEvent[]) =>
    Object.fromEntries(
      games.map((g) => [g.event_id, `${g.status} ${g.home_score}-${g.away_score} ${g.start_time}`]),
    );

  it('shows the same games with the same starts at every play of one replay day', async () => {
    const morning = await boardAt('2026-12-14T02:55:00Z');
    expect(byId(morning)).toEqual({
      '401704801-20261214': 'final 104-114 2026-12-14T00:00:00.000Z',
      '401704802-20261214': 'final 123-124 2026-12-14T00:30:00.000Z',
      '401704803-20261214': 'in_progress 78-81 2026-12-14T01:00:00.000Z',
      '401704804-20261214': 'in_progress 51-56 2026-12-14T02:00:00.000Z',
      '401704805-20261214': 'scheduled 0-0 2026-12-14T03:00:00.000Z',
    });
    const { '401704805-20261214': started, ...played } = byId(morning);
    expect(started).toBeDefined();
    expect(byId(await boardAt('2026-12-14T03:05:00Z'))).toEqual(played);
    expect(byId(await boardAt('2026-12-15T00:59:00Z'))).toEqual(played);
    // A day after their starts the two games in progress have left; the finals stay until the seam.
    expect(Object.keys(byId(await boardAt('2026-12-15T02:49:00Z')))).toEqual([
      '401704801-20261214',
      '401704802-20261214',
    ]);
  });

  it('at the seam, a minute apart, plays the next replay day: other games, no score in progress carried over', async () => {
    const before = await boardAt('2026-12-15T02:49:00Z');
    const after = await boardAt('2026-12-15T02:50:00Z');
    expect(after.map((g) => g.event_id).filter((id) => before.some((b) => b.event_id === id))).toEqual([]);
    const recordedId = (g: SportEvent) => g.event_id.replace(/-\d+$/, '');
    for (const g of after) {
      expect(g.event_id).toMatch(/-20261215$/);
      const same = before.find((b) => recordedId(b) === recordedId(g));
      if (!same) continue;
      expect(Date.parse(g.start_time) - Date.parse(same.start_time)).toBe(DAY);
      expect(same.status).toBe('final');
    }
    expect(after.map((g) => g.status).sort()).toEqual([
      'final',
      'final',
      'in_progress',
      'in_progress',
      'scheduled',
    ]);
  });
});
