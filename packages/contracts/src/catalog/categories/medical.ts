import type { ProductEntry } from '../types.js';
import { DAY, MONTH, WEEK, published } from '../cadence.js';
import { product } from '../product.js';

export const MEDICAL: readonly ProductEntry[] = [
  product(
    'medical',
    'literature',
    'free',
    // Counts of the newest complete day, dated its 00:00 UTC.
    published('daily, the day before', DAY, { lag: DAY }),
    ['pubmed'],
    [],
    [
      ['publication_count', 'object', 'count', 'Publications indexed today'],
      ['publication_count_by_type', 'object', 'count', 'Publications indexed today, by publication type'],
    ],
  ),
  product(
    'medical',
    'guidelines',
    'free',
    // NICE's download report covers a month, dated the 1st, published in the next month.
    published('monthly report', MONTH, { lag: MONTH + 2 * WEEK }),
    ['nice'],
    [],
    [
      [
        'guideline_downloads',
        'object',
        'count',
        'Clinical guideline downloads (replayed sample only: NICE publishes no download statistics feed)',
      ],
    ],
  ),
  product(
    'medical',
    'radiology',
    'free',
    published('daily', DAY),
    ['radiopaedia'],
    [],
    [
      // Radiopaedia has no API; its terms forbid automated copying and commercial use (CC BY-NC-SA).
      [
        'article_count',
        'object',
        'count',
        'Radiology reference articles (replayed sample only: no lawful live source)',
      ],
      [
        'article_count_by_category',
        'object',
        'count',
        'Radiology reference articles by category (replayed sample only: no lawful live source)',
      ],
    ],
  ),
];
