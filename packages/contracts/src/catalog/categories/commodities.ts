import type { ProductEntry } from '../types.js';
import { DAY, WEEK, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const COMMODITIES: readonly ProductEntry[] = [
  product(
    'commodities',
    'energy',
    'free',
    // The EIA releases its daily spot prices once a week (Wednesdays), through a day or two before.
    published('daily prices, released weekly', WEEK, { lag: 2 * DAY }),
    ['eia'],
    [],
    [
      ['wti_crude', 'object', 'USD/bbl', 'WTI crude oil spot price', HISTORY],
      ['natural_gas', 'object', 'USD/MMBtu', 'Henry Hub natural gas spot price', HISTORY],
    ],
  ),
  product(
    'commodities',
    'metals',
    'free',
    published('daily, London business days', DAY, { businessDays: true }),
    ['lbma', 'lme'],
    [],
    [
      ['copper', 'object', 'USD/t', 'Copper price', HISTORY],
      ['gold', 'object', 'USD/ozt', 'Gold price', HISTORY],
      ['silver', 'object', 'USD/ozt', 'Silver price', HISTORY],
    ],
  ),
];
