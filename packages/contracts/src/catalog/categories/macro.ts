import type { ProductEntry } from '../types.js';
import { MONTH, WEEK, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const MACRO: readonly ProductEntry[] = [
  product(
    'macro',
    'money',
    'free',
    // M2 of a month is dated the 1st and published about four weeks after the month ends.
    published('monthly, about 4 weeks after the month', MONTH, { lag: MONTH + 4 * WEEK }),
    ['fred'],
    [],
    [
      ['m2_money_supply', 'object', 'USD', 'M2 money stock', HISTORY],
      ['m2_growth_yoy', 'object', 'percent', 'M2 growth year over year', HISTORY],
    ],
  ),
  product(
    'macro',
    'prices',
    'free',
    // CPI of a month is dated the 1st and published about two weeks after the month ends.
    published('monthly, about 2 weeks after the month', MONTH, { lag: MONTH + 2 * WEEK }),
    ['fred'],
    [],
    [
      ['cpi', 'object', 'index', 'Consumer price index, all urban consumers', HISTORY],
      ['cpi_inflation_yoy', 'object', 'percent', 'CPI inflation year over year', HISTORY],
    ],
  ),
];
