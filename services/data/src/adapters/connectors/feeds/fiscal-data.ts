import { fiscalDataSince } from '../../../domain/feeds/live-windows.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import { parseAvgInterestRates, parseDebtToPenny } from '../../parsers/feeds/civic.js';
import type { ConnectorDefinition } from '../connector.js';

const FISCAL_DATA = 'https://api.fiscaldata.treasury.gov';
const NOTE = 'Treasury Fiscal Data, US government work (public domain); no key';

/** A Fiscal Data dataset's records dated `since` or later, newest first. */
export function fiscalDataQuery(dataset: string, since: string): string {
  const q = new URLSearchParams({
    filter: `record_date:gte:${since}`,
    sort: '-record_date',
    'page[size]': '1000',
  });
  return `/services/api/fiscal_service/v2/accounting/od/${dataset}?${q.toString()}`;
}

/**
 * Debt to the Penny: a business day's debt, published the next business day. The last 14 days
 * (a long weekend and a late day still covered), hourly so a publication lands within the hour.
 */
export const fiscalDataDebt: ConnectorDefinition = {
  name: 'fiscal_data_debt',
  products: ['absurd_economy/treasury'],
  url: FISCAL_DATA,
  cadenceMs: 3_600_000,
  note: NOTE,
  open: (url) => async (http, now) => [
    parseDebtToPenny(
      await http.text(`${url}${fiscalDataQuery('debt_to_penny', fiscalDataSince(now, 14))}`),
      recordedTime,
    ),
  ],
};

/**
 * Average interest rates: one month-end record set, published about two weeks later. The last
 * 100 days (the newest month even when late), read once a day.
 */
export const fiscalDataRates: ConnectorDefinition = {
  name: 'fiscal_data_rates',
  products: ['absurd_economy/treasury'],
  url: FISCAL_DATA,
  cadenceMs: 24 * 3_600_000,
  note: NOTE,
  open: (url) => async (http, now) => [
    parseAvgInterestRates(
      await http.text(`${url}${fiscalDataQuery('avg_interest_rates', fiscalDataSince(now, 100))}`),
      recordedTime,
    ),
  ],
};
