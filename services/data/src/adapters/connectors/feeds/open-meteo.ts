import { COLDEST_PLACE, WEATHER_CITIES } from '../../../domain/feeds/observation-keys.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import { parseOpenMeteo } from '../../parsers/feeds/world.js';
import type { ConnectorDefinition, ConnectorKeys } from '../connector.js';

/** Where each watched place is (Open-Meteo answers the grid cell nearest to it). */
const PLACES: Record<string, { latitude: number; longitude: number }> = {
  london: { latitude: 51.5085, longitude: -0.1257 },
  new_york: { latitude: 40.7143, longitude: -74.006 },
  tokyo: { latitude: 35.6895, longitude: 139.6917 },
  oymyakon: { latitude: 63.4608, longitude: 142.7858 },
};

const NOTE =
  'Open-Meteo data is CC BY 4.0 (credit "Weather data by Open-Meteo.com"); its free API is for non-commercial use only: a commercial deployment needs an Open-Meteo plan (OPEN_METEO_API_KEY, INGEST_URL_<NAME>=https://customer-api.open-meteo.com)';

/**
 * Open-Meteo forecast API `current=` for several places in one request (latitude and longitude
 * lists, answered as an array in the same order), timezone GMT so `current.time` is UTC.
 */
export function openMeteoQuery(keys: string[], apiKey?: string): string {
  const places = keys.map((k) => PLACES[k]!);
  const q = new URLSearchParams({
    latitude: places.map((p) => p.latitude).join(','),
    longitude: places.map((p) => p.longitude).join(','),
    current: 'temperature_2m,wind_speed_10m,precipitation',
    timezone: 'GMT',
  });
  if (apiKey) q.set('apikey', apiKey);
  return `/v1/forecast?${q.toString()}`;
}

/**
 * Current conditions are 15-minutely model data (`current.interval` 900 s): polled every 15 minutes,
 * one request for all places (the free API allows 600 calls a minute, 10 000 a day).
 */
const openMeteoFor = (name: string, products: string[], keys: string[]): ConnectorDefinition => ({
  name,
  products,
  url: 'https://api.open-meteo.com',
  cadenceMs: 15 * 60_000,
  note: NOTE,
  open: (url, secrets: ConnectorKeys) => async (http) => [
    parseOpenMeteo(
      await http.text(`${url}${openMeteoQuery(keys, secrets.OPEN_METEO_API_KEY)}`),
      keys,
      recordedTime,
    ),
  ],
});

/** weather/observations: the catalogue's cities. */
export const openMeteo = openMeteoFor('open_meteo', ['weather/observations'], WEATHER_CITIES);
/** absurd_earth/weather: the coldest inhabited place we watch. */
export const openMeteoColdest = openMeteoFor('open_meteo_coldest', ['absurd_earth/weather'], [COLDEST_PLACE]);
