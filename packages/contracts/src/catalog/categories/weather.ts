import type { ProductEntry } from '../types.js';
import { OPEN_METEO_CURRENT } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const WEATHER: readonly ProductEntry[] = [
  product(
    'weather',
    'observations',
    'free',
    OPEN_METEO_CURRENT,
    ['open_meteo'],
    ['london', 'new_york', 'tokyo'],
    [
      ['temperature', 'scalar', 'celsius', 'Air temperature at 2 m', HISTORY],
      ['wind_speed', 'scalar', 'km/h', 'Wind speed at 10 m', HISTORY],
      ['precipitation', 'scalar', 'mm', 'Precipitation over the preceding 15 minutes', HISTORY],
    ],
    [],
    { default_entity: 'london' },
  ),
];
