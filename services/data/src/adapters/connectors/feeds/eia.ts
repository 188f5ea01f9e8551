import { parseEiaSpot } from '../../parsers/feeds/commodities.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import type { ConnectorDefinition } from '../connector.js';

/** The EIA API v2 route of each daily spot series (WTI is a petroleum price, Henry Hub a gas one). */
const ROUTES: [route: string, series: string][] = [
  ['petroleum/pri/spt', 'RWTC'],
  ['natural-gas/pri/fut', 'RNGWHHD'],
];

/**
 * EIA API v2 daily spot prices (US government data, public domain), the newest 10 of each series per
 * request, through the parser of the recording (recordings/eia/). The EIA releases them weekly
 * (Wednesdays) and throttles fast callers: one poll of two requests every 6 h.
 */
export const eia: ConnectorDefinition = {
  name: 'eia',
  products: ['commodities/energy'],
  url: 'https://api.eia.gov',
  cadenceMs: 6 * 60 * 60_000,
  needs: ['EIA_API_KEY'],
  note: 'EIA open data (US government, public domain); the key is free',
  open: (url, keys) => async (http) => {
    const batches = [];
    for (const [route, series] of ROUTES) {
      const q = new URLSearchParams({
        api_key: keys.EIA_API_KEY!,
        frequency: 'daily',
        'data[0]': 'value',
        'facets[series][]': series,
        'sort[0][column]': 'period',
        'sort[0][direction]': 'desc',
        length: '10',
      });
      batches.push(parseEiaSpot(await http.text(`${url}/v2/${route}/data/?${q}`), recordedTime));
    }
    return batches;
  },
};
