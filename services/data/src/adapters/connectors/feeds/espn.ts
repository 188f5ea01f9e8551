import { recordedTime } from '../../../domain/replay-clock.js';
import { parseEspnScoreboard } from '../../parsers/feeds/espn.js';
import type { ConnectorDefinition } from '../connector.js';

/** The catalogue's leagues: our sport and league names, and ESPN's scoreboard path for each. */
export const ESPN_LEAGUES = [
  { sport: 'basketball', league: 'nba', path: 'basketball/nba' },
  { sport: 'football', league: 'eng.1', path: 'soccer/eng.1' },
  { sport: 'football', league: 'usa.1', path: 'soccer/usa.1' },
  { sport: 'tennis', league: 'atp', path: 'tennis/atp' },
  { sport: 'tennis', league: 'wta', path: 'tennis/wta' },
] as const;

/**
 * ESPN site API scoreboards (`/apis/site/v2/sports/<sport>/<league>/scoreboard`, today's games),
 * one request per league every minute (the catalogue's 60 s), all five written together. A
 * scoreboard carries no time of its own: each snapshot is stamped with the poll's `now`.
 *
 * Not started by default: the site API is unofficial (undocumented, no key, may change without
 * notice) and ESPN's terms of use allow personal, non-commercial use only. No public source licenses
 * reselling live scores of these leagues; the lawful ways are ESPN's permission or a licensed feed
 * (Sportradar, Genius Sports, Stats Perform), which a new connector would read. ESPN_LICENCE states
 * which applies to this deployment (shown nowhere but in the operator's environment).
 */
export const espn: ConnectorDefinition = {
  name: 'espn',
  products: ['sports/basketball', 'sports/football', 'sports/tennis'],
  url: 'https://site.api.espn.com',
  cadenceMs: 60_000,
  needs: ['ESPN_LICENCE'],
  note: "ESPN's site API is unofficial and its terms allow personal, non-commercial use only: runs only with ESPN_LICENCE (ESPN's permission, or a personal deployment); reselling scores needs a licensed feed (Sportradar, Genius Sports)",
  open: (url) => async (http, now) => {
    const answers = await Promise.all(
      ESPN_LEAGUES.map((l) => http.text(`${url}/apis/site/v2/sports/${l.path}/scoreboard`)),
    );
    return ESPN_LEAGUES.map((l, i) =>
      parseEspnScoreboard(answers[i]!, l.sport, l.league, now.toISOString(), recordedTime),
    );
  },
};
