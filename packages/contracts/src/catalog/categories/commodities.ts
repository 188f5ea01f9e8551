import type { ProductEntry } from '../types.js';
import { DAY, MONTH, WEEK, published } from '../cadence.js';
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
    ['lbma', 'fred'],
    [],
    [
      [
        'copper',
        'object',
        'USD/t',
        "Copper price: the IMF's monthly global price through FRED (PCOPPUSDM). Not the LME price: LME's licence forbids redistributing it",
        // The IMF's monthly average, dated the 1st, published early in the next month.
        { ...HISTORY, cadence: published('monthly average', MONTH, { lag: MONTH + WEEK }) },
      ],
      [
        'gold',
        'object',
        'USD/ozt',
        'Gold price: LBMA Gold Price PM. Administered by ICE Benchmark Administration; using or redistributing it needs an IBA licence',
        HISTORY,
      ],
      [
        'silver',
        'object',
        'USD/ozt',
        'Silver price: LBMA Silver Price. Administered by ICE Benchmark Administration; using or redistributing it needs an IBA licence',
        HISTORY,
      ],
    ],
  ),
];
