import type { DataDeps } from '../../../deps.js';
import { COLDEST_PLACE, TIDE_STATION } from '../../../domain/feeds/observation-keys.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { latestResolver } from './latest.js';

const byEntity = (entity: string | undefined) => entity ?? '';

/** weather/observations of the watched cities, and absurd_earth's coldest place and tide gauge. */
export const weatherResolvers: Record<string, MetricResolver<DataDeps>> = {
  ...Object.fromEntries(
    (
      [
        ['temperature', 'celsius', 'temperature_2m: air temperature at 2 m'],
        ['wind_speed', 'km/h', 'wind_speed_10m: wind speed at 10 m'],
        ['precipitation', 'mm', 'precipitation: sum over the preceding interval'],
      ] as const
    ).map(([metric, unit, words]) => [
      `weather/observations/${metric}`,
      latestResolver({
        source: 'open_meteo',
        file: 'current_cities',
        metric,
        key: byEntity,
        defaultEntity: 'london',
        unit,
        method: `Open-Meteo current conditions (${words}) at the city's coordinates.`,
      }),
    ]),
  ),
  'absurd_earth/weather/temperature': latestResolver({
    source: 'open_meteo',
    file: 'oymyakon',
    metric: 'temperature',
    key: () => COLDEST_PLACE,
    unit: 'celsius',
    method:
      'Open-Meteo current temperature_2m at Oymyakon (63.46 N, 142.79 E), the coldest inhabited place we watch.',
  }),
  'absurd_earth/tides/water_level': latestResolver({
    source: 'noaa_tides',
    file: TIDE_STATION,
    metric: 'water_level',
    key: () => TIDE_STATION,
    unit: 'm',
    method: 'NOAA CO-OPS 6-minute water level at The Battery, New York (station 8518750), metres above MLLW.',
  }),
};
