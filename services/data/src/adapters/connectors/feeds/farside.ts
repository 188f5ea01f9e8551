import { parseFarsideHtml } from '../../parsers/feeds/markets.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import type { ConnectorDefinition } from '../connector.js';

/**
 * Farside Investors' bitcoin ETF flow page (`/btc/`), an HTML table (parseFarsideHtml) read into the
 * records of the recording's CSV parser. Farside fills in a day's funds after the US close as the
 * issuers report, so the newest day changes for hours: polls every 2 h.
 */
export const farside: ConnectorDefinition = {
  name: 'farside',
  products: ['crypto/etf_flows'],
  url: 'https://farside.co.uk',
  cadenceMs: 2 * 60 * 60_000,
  optIn:
    "Farside Investors offers no API and publishes no licence to reuse its tables, and the page sits behind a bot challenge that must not be circumvented: get Farside's permission first",
  open: (url) => async (http) => [
    parseFarsideHtml(await http.text(`${url}/btc/`, { accept: 'text/html' }), recordedTime),
  ],
};
