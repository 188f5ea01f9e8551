import { byCodeUnits } from '@meridian/contracts';
import type { DataDeps } from '../deps.js';
import { buildChain, demoOptions, type DemoOptions } from '../domain/derivatives/options.js';
import { gameRow, statusHolds } from '../domain/feeds/sports.js';
import type { SourceRef } from '../domain/metric-resolver.js';
import { iso } from './resolve/feed-answer.js';
import { chainSnapshot } from './resolve/derivatives/options.js';
import { sportEvents } from './resolve/feeds/sports.js';

export interface DemoEvent {
  sport: string;
  league: string;
  home: string;
  away: string;
  home_score: number;
  away_score: number;
  status: string;
  start_time: string;
}

export interface DemoFeeds {
  options: DemoOptions | null;
  sports: { events: DemoEvent[] };
  sources: SourceRef[];
}

const DEMO_SPORTS: [sport: string, leagues: string[]][] = [
  ['basketball', ['nba']],
  ['football', ['eng.1', 'usa.1']],
  ['tennis', ['atp', 'wta']],
];

/** The options and sports parts of GET /v1/demo (data 2.2): a few BTC contracts and the current scoreboards. */
export async function demoSnapshot(deps: DataDeps, now: Date): Promise<DemoFeeds> {
  const sources: SourceRef[] = [];
  const snap = await chainSnapshot(deps, 'BTC', now);
  let options: DemoOptions | null = null;
  if (snap) {
    options = demoOptions(buildChain('BTC', snap.marks), snap.asOf);
    sources.push({ venue: 'deribit', ts: iso(snap.asOf), symbol: 'BTC options' });
  }
  const events: DemoEvent[] = [];
  for (const [sport, leagues] of DEMO_SPORTS) {
    const stored = await sportEvents(deps, sport, leagues, now);
    if (stored.length === 0) continue;
    const newest = Math.max(...stored.map((s) => s.ts.getTime()));
    sources.push({ venue: 'espn', ts: iso(new Date(newest)), symbol: leagues.join(',') });
    for (const { event } of stored.filter((s) => s.ts.getTime() === newest && statusHolds(s.event, now))) {
      // The demo shows the spec's event fields only: no event id, no detail line.
      const { event: _id, detail: _detail, ...shown } = gameRow(event);
      events.push(shown);
    }
  }
  events.sort((a, b) => byCodeUnits(a.start_time, b.start_time));
  return { options, sports: { events }, sources };
}
