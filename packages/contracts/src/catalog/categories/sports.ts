import type { ProductEntry } from '../types.js';
import { polled } from '../cadence.js';
import { HISTORY, product } from '../product.js';

/** Why live scores are restricted (services/data/docs/live-connectors.md: the espn connector). */
const ESPN_LICENCE =
  "ESPN site API scoreboards: unofficial, and ESPN's terms allow personal, non-commercial use only; live mode polls it only where the operator has ESPN's permission (ESPN_LICENCE); reselling scores needs a licensed feed (e.g. Sportradar)";

export const SPORTS: readonly ProductEntry[] = [
  product(
    'sports',
    'tennis',
    'basic',
    polled(60),
    ['espn'],
    ['atp', 'wta'],
    [
      ['match_result', 'object', 'score', 'Final results only', HISTORY],
      ['live_score', 'object', 'score', 'In-progress matches only', HISTORY],
    ],
    [],
    { licence: ESPN_LICENCE },
  ),
  product(
    'sports',
    'football',
    'basic',
    polled(60),
    ['espn'],
    ['eng.1', 'usa.1'],
    [
      ['match_result', 'object', 'score', 'Final results only', HISTORY],
      ['live_score', 'object', 'score', 'In-progress games only', HISTORY],
    ],
    [],
    { licence: ESPN_LICENCE },
  ),
  product(
    'sports',
    'basketball',
    'basic',
    polled(60),
    ['espn'],
    ['nba'],
    [
      ['match_result', 'object', 'score', 'Final results only', HISTORY],
      ['box_score', 'object', 'score', 'Team scores of any played game (in progress or final)', HISTORY],
      ['live_score', 'object', 'score', 'In-progress games only', HISTORY],
    ],
    [],
    { licence: ESPN_LICENCE },
  ),
];
