import type { ProductEntry } from '../types.js';
import { DAY, MONTH, WEEK, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const ABSURD_ECONOMY: readonly ProductEntry[] = [
  product(
    'absurd_economy',
    'treasury',
    'free',
    // Debt to the Penny: a business day's debt, dated that day, published the next business day.
    published('daily, business days, the next day', DAY, { lag: DAY, businessDays: true }),
    ['fiscal_data'],
    [],
    [
      ['national_debt', 'scalar', 'USD', 'Total public debt outstanding', HISTORY],
      [
        'avg_interest_rate',
        'scalar',
        'percent',
        'Average interest rate on marketable debt',
        // Dated the last day of the month, published about two weeks later.
        { ...HISTORY, cadence: published('monthly, mid the next month', MONTH, { lag: 2 * WEEK }) },
      ],
    ],
  ),
];
