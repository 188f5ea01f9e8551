import { nyc311Since } from '../../../domain/feeds/live-windows.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import { parseNyc311 } from '../../parsers/feeds/civic.js';
import type { ConnectorDefinition } from '../connector.js';

/** NYC Open Data "311 Service Requests from 2010 to Present" (Socrata dataset erm2-nwe9). */
const DATASET = 'erm2-nwe9';

/**
 * SODA query: rodent complaints created since `since` (New York wall time, as created_date is
 * stored), only the columns the parser reads, newest first.
 */
export function nyc311Query(since: string): string {
  const q = new URLSearchParams({
    $select: 'unique_key,created_date,descriptor,borough',
    $where: `complaint_type='Rodent' AND created_date >= '${since}'`,
    $order: 'created_date DESC',
    $limit: '50000',
  });
  return `/resource/${DATASET}.json?${q.toString()}`;
}

/**
 * Rat sightings since yesterday's midnight in New York (today's, and yesterday's for the day's
 * turn), hourly. The dataset is refreshed about once a day, so "today" fills in as NYC publishes.
 * Anonymous SODA requests share a throttled pool; SOCRATA_APP_TOKEN raises it.
 */
export const nyc311: ConnectorDefinition = {
  name: 'nyc_311',
  products: ['absurd_civic/city_nervous_system'],
  url: 'https://data.cityofnewyork.us',
  cadenceMs: 3_600_000,
  note: 'NYC Open Data, free to use (NYC Open Data terms of use); refreshed daily by the city',
  open: (url, keys) => async (http, now) => [
    parseNyc311(
      await http.text(
        `${url}${nyc311Query(nyc311Since(now, 1))}`,
        keys.SOCRATA_APP_TOKEN ? { 'x-app-token': keys.SOCRATA_APP_TOKEN } : {},
      ),
      now.toISOString(),
      recordedTime,
    ),
  ],
};
