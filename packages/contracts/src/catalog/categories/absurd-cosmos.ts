import type { ProductEntry } from '../types.js';
import { DAY, HOUR, MONTH, WEEK, polled, published } from '../cadence.js';
import { HISTORY, product } from '../product.js';

export const ABSURD_COSMOS: readonly ProductEntry[] = [
  product(
    'absurd_cosmos',
    'space_weather',
    'free',
    // A 3-hour index, dated at the start of its interval and published when the interval ends.
    published('every 3 h', 3 * HOUR, { lag: 3 * HOUR }),
    ['noaa_swpc'],
    [],
    [['planetary_kp', 'scalar', 'index', 'Planetary K-index of geomagnetic activity', HISTORY]],
  ),
  product(
    'absurd_cosmos',
    'restless_earth',
    'free',
    // USGS regenerates its all_day summary feed every minute.
    polled(60),
    ['usgs'],
    [],
    [
      ['quakes_last_hour', 'scalar', 'count', 'Earthquakes recorded worldwide in the last hour'],
      ['largest_quake_today', 'object', 'magnitude', 'Largest earthquake of the UTC day'],
    ],
  ),
  product(
    'absurd_cosmos',
    'off_world',
    'free',
    // astros.json carries no time and changes with crew rotations; it is read once a day.
    published('daily', DAY),
    ['open_notify'],
    [],
    [['humans_in_space', 'object', 'count', 'People in space right now, by craft', HISTORY]],
  ),
  product(
    'absurd_cosmos',
    'solar_cycle',
    'free',
    // A month's mean, dated the 1st, published in the first week after the month ends.
    published('monthly, early the next month', MONTH, { lag: MONTH + WEEK }),
    ['noaa_swpc'],
    [],
    [['sunspot_number', 'scalar', 'count', 'Monthly mean sunspot number', HISTORY]],
    [],
    {
      licence:
        "SILSO International Sunspot Number (SIDC, Royal Observatory of Belgium, CC BY-NC 4.0: no commercial use without SIDC's agreement), as republished by NOAA SWPC",
    },
  ),
];
