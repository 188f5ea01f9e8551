import { TIDE_STATION } from '../../../domain/feeds/observation-keys.js';
import { tidesRange } from '../../../domain/feeds/live-windows.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import { parseNoaaWaterLevel } from '../../parsers/feeds/world.js';
import type { ConnectorDefinition } from '../connector.js';
import { UpstreamError } from '../upstream-http.js';

/** CO-OPS datagetter: preliminary 6-minute water levels at the station, metres above MLLW, GMT. */
export function tidesQuery(range: { begin_date: string; end_date: string }): string {
  const q = new URLSearchParams({
    product: 'water_level',
    application: 'meridian',
    station: TIDE_STATION,
    datum: 'MLLW',
    units: 'metric',
    time_zone: 'gmt',
    format: 'json',
    ...range,
  });
  return `/api/prod/datagetter?${q.toString()}`;
}

/**
 * CO-OPS answers its errors with status 200 and `{"error": {"message"}}`: "No data was found" is an
 * empty answer (a station gap), any other message is the upstream refusing the query.
 */
function rejectError(text: string): string | null {
  const doc = JSON.parse(text) as { error?: { message?: string } };
  if (!doc.error) return text;
  const message = String(doc.error.message ?? '');
  if (/^No data was found/i.test(message)) return null;
  throw new UpstreamError('http_error', `CO-OPS datagetter: ${message.slice(0, 200)}`);
}

/**
 * The Battery's water level, every 6 minutes as CO-OPS publishes it; each poll asks the last hour
 * (a missed poll or two is filled in). US government work (public domain).
 */
export const noaaTides: ConnectorDefinition = {
  name: 'noaa_tides',
  products: ['absurd_earth/tides'],
  url: 'https://api.tidesandcurrents.noaa.gov',
  cadenceMs: 6 * 60_000,
  note: 'NOAA CO-OPS, US government work (public domain); preliminary data',
  open: (url) => async (http, now) => {
    const text = rejectError(await http.text(`${url}${tidesQuery(tidesRange(now, 60))}`));
    return text === null ? [] : [parseNoaaWaterLevel(text, recordedTime)];
  },
};
