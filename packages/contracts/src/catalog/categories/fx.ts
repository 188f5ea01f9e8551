import type { ProductEntry } from '../types.js';
import { DAY, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const FX: readonly ProductEntry[] = [
  product(
    'fx',
    'spot',
    'free',
    // The ECB fixes its reference rates once a day on TARGET business days, dated at the fixing.
    published('daily, ECB business days, about 16:00 CET', DAY, { businessDays: true }),
    ['ecb'],
    ['EUR-USD', 'GBP-USD', 'USD-JPY'],
    [
      [
        'reference_rate',
        'object',
        'rate',
        'Reference exchange rate: ECB reference rates (ECB as source)',
        HISTORY,
      ],
      ['change_24h', 'object', 'percent', 'Change of the reference rate over about 24 h', HISTORY],
    ],
    [],
    { default_entity: 'EUR-USD' },
  ),
];
