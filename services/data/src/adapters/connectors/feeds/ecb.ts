import { parseEcbEurofxref } from '../../parsers/feeds/markets.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import type { ConnectorDefinition } from '../connector.js';

/**
 * ECB reference rates from the ECB itself (no key): the first poll reads the last 90 fixings
 * (`eurofxref-hist-90d.xml`, history for change_24h and series), every later one only the newest
 * (`eurofxref-daily.xml`, about 2 KB). Same format, same parser as the recording (recordings/ecb/).
 * The ECB fixes once a day about 16:00 CET on TARGET days: hourly polls catch it within the hour.
 */
export const ecb: ConnectorDefinition = {
  name: 'ecb',
  products: ['fx/spot'],
  url: 'https://www.ecb.europa.eu',
  cadenceMs: 60 * 60_000,
  note: 'ECB reference rates: published for information purposes; reuse is free with the ECB named as the source',
  open: (url) => {
    let history = true;
    return async (http) => {
      const file = history ? 'eurofxref-hist-90d.xml' : 'eurofxref-daily.xml';
      const batch = parseEcbEurofxref(await http.text(`${url}/stats/eurofxref/${file}`), recordedTime);
      history = false;
      return [batch];
    };
  },
};
