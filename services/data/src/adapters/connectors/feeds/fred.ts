import type { IngestBatchInput } from '@meridian/contracts';
import { parseFredSeries, type FredTarget } from '../../parsers/feeds/markets.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import type { ConnectorDefinition } from '../connector.js';
import type { UpstreamHttp } from '../upstream-http.js';

/** One FRED series and where its observations are stored. */
interface FredSeries extends FredTarget {
  id: string;
}

const MONTH_DAYS = 31;

/** The first day to ask for: `days` before `now` (FRED's observation_start, YYYY-MM-DD). */
const since = (now: Date, days: number) =>
  new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);

/**
 * Reads each series in turn (FRED allows 120 requests a minute; a poll makes at most three), all
 * into one poll so that a poll is written whole. The key travels as `api_key` in the query: an
 * UpstreamError names only the query's parameter names, never the key (upstream-http.ts).
 */
function fredPoll(series: FredSeries[], days: number) {
  return (url: string, apiKey: string) => async (http: UpstreamHttp, now: Date) => {
    const batches: IngestBatchInput[] = [];
    for (const s of series) {
      const q = new URLSearchParams({
        series_id: s.id,
        api_key: apiKey,
        file_type: 'json',
        observation_start: since(now, days),
      });
      batches.push(parseFredSeries(await http.text(`${url}/fred/series/observations?${q}`), s, recordedTime));
    }
    return batches;
  };
}

const macroSeries = fredPoll(
  [
    { id: 'M2SL', metric: 'm2_money_supply', key: '', scale: 1e9 },
    { id: 'CPIAUCSL', metric: 'cpi', key: '', scale: 1 },
    // LME forbids redistributing its prices: copper is the IMF's monthly global price, through FRED.
    { id: 'PCOPPUSDM', metric: 'commodity_spot', key: 'copper', scale: 1 },
  ],
  // Year-over-year growth needs the same month a year earlier; 26 months cover a late publication.
  26 * MONTH_DAYS,
);

/**
 * FRED (St. Louis Fed) monthly series for macro (M2SL, CPIAUCSL) and the copper price (PCOPPUSDM,
 * IMF). Monthly data published weeks after the month: a poll every 6 h is plenty.
 */
export const fred: ConnectorDefinition = {
  name: 'fred',
  products: ['macro/money', 'macro/prices', 'commodities/metals'],
  url: 'https://api.stlouisfed.org',
  cadenceMs: 6 * 60 * 60_000,
  needs: ['FRED_API_KEY'],
  note: "FRED API terms; copper is the IMF's monthly global price (PCOPPUSDM; IMF data may be redistributed with attribution), as LME's licence forbids redistributing its own prices",
  open: (url, keys) => macroSeries(url, keys.FRED_API_KEY!),
};

const indexSeries = fredPoll(
  [
    { id: 'SP500', metric: 'index_close', key: 'sp500', scale: 1 },
    { id: 'NASDAQCOM', metric: 'index_close', key: 'nasdaq', scale: 1 },
  ],
  31,
);

/**
 * Daily closes of the S&P 500 and the Nasdaq Composite from FRED (series SP500, NASDAQCOM) instead of
 * Stooq, which grants no documented licence to reuse its data and whose CSV downloads now need a
 * CAPTCHA-issued key with an undisclosed daily quota (answered 200 with a text, not 429). FRED
 * posts a close the next US morning: a poll every 2 h.
 */
export const fredIndices: ConnectorDefinition = {
  name: 'fred_indices',
  products: ['stocks/indices'],
  url: 'https://api.stlouisfed.org',
  cadenceMs: 2 * 60 * 60_000,
  needs: ['FRED_API_KEY'],
  note: 'index levels are © S&P Dow Jones Indices and Nasdaq, Inc.: FRED may show them, reselling them needs their licence',
  open: (url, keys) => indexSeries(url, keys.FRED_API_KEY!),
};
