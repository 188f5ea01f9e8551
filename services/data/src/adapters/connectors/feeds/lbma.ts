import { parseLbma } from '../../parsers/feeds/commodities.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import type { ConnectorDefinition } from '../connector.js';

/**
 * The LBMA Gold Price PM (15:00 London) and LBMA Silver Price (12:00) as the LBMA's price pages load
 * them (`prices.lbma.org.uk/json/*.json`), through the parser of the recording (recordings/lbma/).
 * Published on London business days, shown with a delay: hourly polls.
 */
export const lbma: ConnectorDefinition = {
  name: 'lbma',
  products: ['commodities/metals'],
  url: 'https://prices.lbma.org.uk',
  cadenceMs: 60 * 60_000,
  optIn:
    'the LBMA Gold and Silver Prices are administered by ICE Benchmark Administration: using or redistributing them needs an IBA licence, and the JSON files have no published terms of use',
  open: (url) => async (http) => [
    parseLbma(await http.text(`${url}/json/gold_pm.json`), 'gold', '15:00:00', recordedTime),
    parseLbma(await http.text(`${url}/json/silver.json`), 'silver', '12:00:00', recordedTime),
  ],
};
