import type { ProductEntry } from '../types.js';
import { OPEN_METEO_CURRENT } from '../cadence.js';
import { HISTORY, product } from '../product.js';

/** Open-Meteo's terms (https://open-meteo.com/en/terms, /en/license). */
export const OPEN_METEO_LICENCE =
  'Open-Meteo, CC BY 4.0 (credit: Weather data by Open-Meteo.com); its free API is for non-commercial use only, a commercial deployment needs an Open-Meteo plan';

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
    { default_entity: 'london', licence: OPEN_METEO_LICENCE },
  ),
];
