import type { ProductEntry } from '../types.js';
import { polled } from '../cadence.js';
import { HISTORY, product } from '../product.js';

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
  ),
];
