import type { ProductEntry } from '../types.js';
import { DAY, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const ABSURD_CIVIC: readonly ProductEntry[] = [
  product(
    'absurd_civic',
    'leviathan_ledger',
    'free',
    published('daily, federal business days', DAY, { businessDays: true }),
    ['federal_register'],
    [],
    [['red_tape_output', 'object', 'count', 'Documents published in the Federal Register today', HISTORY]],
  ),
  product(
    'absurd_civic',
    'city_nervous_system',
    'free',
    published('daily', DAY),
    ['nyc_311'],
    [],
    [['rat_sightings_today', 'scalar', 'count', 'Rat sightings reported to NYC 311 today']],
  ),
];
