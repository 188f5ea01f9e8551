import type { IngestBatchInput } from '@meridian/contracts';
import type { ReplayClock } from '../../../domain/replay-clock.js';
import { newYorkToUtc } from '../../../domain/feeds/new-york-time.js';
import { observationBatch, type ObservationInput } from './observations.js';

/** Federal Register /documents/facets/type for one publication day: {RULE: {count, name}, ...}. */
export function parseFederalRegisterFacets(
  text: string,
  recordedAt: string,
  clock: ReplayClock,
): IngestBatchInput {
  const doc = JSON.parse(text) as Record<string, { count: number; name: string }>;
  const byType = Object.fromEntries(Object.values(doc).map((f) => [f.name, f.count]));
  const total = Object.values(doc).reduce((s, f) => s + f.count, 0);
  return observationBatch('federal_register', [
    { key: '', metric: 'red_tape_output', ts: clock(recordedAt), value: total, payload: { by_type: byType } },
  ]);
}

/**
 * NYC Open Data (Socrata) 311 rows: created_date is New York wall time without offset; each
 * sighting becomes an observation at its UTC instant, and the snapshot one marks the feed's time.
 */
export function parseNyc311(text: string, recordedAt: string, clock: ReplayClock): IngestBatchInput {
  const rows = JSON.parse(text) as {
    unique_key: string;
    created_date: string;
    descriptor: string;
    borough: string;
  }[];
  const sightings: ObservationInput[] = rows
    .filter((r) => r.descriptor === 'Rat Sighting')
    .map((r) => ({
      key: r.unique_key,
      metric: 'rat_sighting',
      ts: clock(newYorkToUtc(r.created_date)),
      value: 1,
      payload: { borough: r.borough },
    }));
  sightings.push({ key: 'rat_sightings', metric: 'nyc_311_feed', ts: clock(recordedAt), value: rows.length });
  return observationBatch('nyc_311', sightings);
}

/** Treasury Fiscal Data debt_to_penny: tot_pub_debt_out_amt in USD, dated record_date. */
export function parseDebtToPenny(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as { data: Record<string, string>[] };
  return observationBatch(
    'fiscal_data',
    doc.data.map((d) => ({
      key: '',
      metric: 'national_debt',
      ts: clock(`${d.record_date}T00:00:00Z`),
      value: Number(d.tot_pub_debt_out_amt),
      payload: {
        debt_held_public_usd: Number(d.debt_held_public_amt),
        intragovernmental_usd: Number(d.intragov_hold_amt),
      },
    })),
  );
}

/** Treasury Fiscal Data avg_interest_rates: the "Total Marketable" line, percent. */
export function parseAvgInterestRates(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as { data: Record<string, string>[] };
  return observationBatch(
    'fiscal_data',
    doc.data
      .filter((d) => d.security_desc === 'Total Marketable')
      .map((d) => ({
        key: '',
        metric: 'avg_interest_rate',
        ts: clock(`${d.record_date}T00:00:00Z`),
        value: Number(d.avg_interest_rate_amt),
      })),
  );
}
