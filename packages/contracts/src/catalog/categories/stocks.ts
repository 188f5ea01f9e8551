import type { ProductEntry } from '../types.js';
import { DAY, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const STOCKS: readonly ProductEntry[] = [
  product(
    'stocks',
    'indices',
    'free',
    // FRED posts a close the next US morning, dated the trading day.
    published('daily close, US trading days', DAY, { lag: DAY, businessDays: true }),
    ['fred'],
    [],
    [
      [
        'sp500',
        'object',
        'index points',
        'S&P 500 index level (daily close through FRED; © S&P Dow Jones Indices: resale needs their licence)',
        HISTORY,
      ],
      [
        'nasdaq',
        'object',
        'index points',
        'Nasdaq Composite index level (daily close through FRED; © Nasdaq, Inc.: resale needs their licence)',
        HISTORY,
      ],
    ],
  ),
];
