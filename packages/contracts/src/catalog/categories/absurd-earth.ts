import type { ProductEntry } from '../types.js';
import { MINUTE, OPEN_METEO_CURRENT, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';
import { OPEN_METEO_LICENCE } from './weather.js';

export const ABSURD_EARTH: readonly ProductEntry[] = [
  product(
    'absurd_earth',
    'weather',
    'free',
    OPEN_METEO_CURRENT,
    ['open_meteo'],
    [],
    [
      [
        'temperature',
        'scalar',
        'celsius',
        'Air temperature at the coldest inhabited place we watch',
        HISTORY,
      ],
    ],
    [],
    { licence: OPEN_METEO_LICENCE },
  ),
  product(
    'absurd_earth',
    'tides',
    'free',
    published('every 6 min', 6 * MINUTE),
    ['noaa_tides'],
    [],
    [['water_level', 'scalar', 'm', 'Water level at the Battery, New York', HISTORY]],
  ),
];
