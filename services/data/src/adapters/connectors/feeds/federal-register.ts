import { federalRegisterDay } from '../../../domain/feeds/live-windows.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import { parseFederalRegisterFacets } from '../../parsers/feeds/civic.js';
import type { ConnectorDefinition } from '../connector.js';

/** Federal Register `documents/facets/type` for one publication day (YYYY-MM-DD). */
export function federalRegisterQuery(day: string): string {
  const q = new URLSearchParams({ 'conditions[publication_date][is]': day });
  return `/api/v1/documents/facets/type?${q.toString()}`;
}

/**
 * The day's documents by type. The Register publishes once each federal business day, early morning
 * Washington time: polled hourly so the day's count lands within the hour (a day without an issue
 * answers `{}`, stored as 0). No key; US government work (public domain).
 */
export const federalRegister: ConnectorDefinition = {
  name: 'federal_register',
  products: ['absurd_civic/leviathan_ledger'],
  url: 'https://www.federalregister.gov',
  cadenceMs: 3_600_000,
  note: 'Federal Register API, US government work (public domain)',
  open: (url) => async (http, now) => [
    parseFederalRegisterFacets(
      await http.text(`${url}${federalRegisterQuery(federalRegisterDay(now))}`),
      now.toISOString(),
      recordedTime,
    ),
  ],
};
