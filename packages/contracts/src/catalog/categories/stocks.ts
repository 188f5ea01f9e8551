import type { ProductEntry } from '../types.js';
import { DAY, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const STOCKS: readonly ProductEntry[] = [
  product(
    'stocks',
    'indices',
    'free',
    published('daily close, US trading days', DAY, { businessDays: true }),
    ['stooq'],
    [],
    [
      ['sp500', 'object', 'index points', 'S&P 500 index level', HISTORY],
      ['nasdaq', 'object', 'index points', 'Nasdaq Composite index level', HISTORY],
    ],
  ),
];
