import { ok } from '@meridian/contracts';
import { latestObservation, observationsBetween } from '../../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../../deps.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { newYorkDayStart } from '../../../domain/feeds/new-york-time.js';
import { feedAnswer, iso, noData, noEntity } from '../feed-answer.js';
import { latestResolver } from './latest.js';

const ratSightingsToday: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const checked = noEntity(query, hit);
  if (!checked.ok) return checked;
  const feed = await latestObservation(deps.db, 'nyc_311_feed', 'rat_sightings', query.now);
  if (!feed) return noData('absurd_civic/city_nervous_system/rat_sightings_today');
  const dayStart = newYorkDayStart(feed.ts.getTime());
  const rows = await observationsBetween(deps.db, 'rat_sighting', new Date(dayStart - 1), feed.ts);
  return ok(
    await feedAnswer(deps, {
      data: rows.length,
      now: query.now,
      asOf: feed.ts,
      sources: [{ venue: 'nyc_311', ts: iso(feed.ts) }],
      method: `NYC Open Data 311 service requests with descriptor "Rat Sighting" created since midnight New York time (${iso(new Date(dayStart))}) up to the feed snapshot. Unit: count.`,
      hit,
      replay: { source: 'nyc_311', file: 'rat_sightings' },
    }),
  );
};

/** absurd_civic and absurd_economy: the Federal Register, New York's rats and the Treasury. */
export const civicResolvers: Record<string, MetricResolver<DataDeps>> = {
  'absurd_civic/leviathan_ledger/red_tape_output': latestResolver({
    source: 'federal_register',
    file: 'facets',
    metric: 'red_tape_output',
    key: () => '',
    unit: 'count',
    method:
      'Federal Register documents published on the day, by document type (documents/facets/type), summed.',
    object: ([o]) => ({ documents: o!.value, by_type: o!.payload.by_type, day: iso(o!.ts).slice(0, 10) }),
  }),
  'absurd_economy/treasury/national_debt': latestResolver({
    source: 'fiscal_data',
    file: 'debt_to_penny',
    metric: 'national_debt',
    key: () => '',
    unit: 'USD',
    method: 'Treasury Fiscal Data debt_to_penny: total public debt outstanding on the newest record date.',
  }),
  'absurd_economy/treasury/avg_interest_rate': latestResolver({
    source: 'fiscal_data',
    file: 'avg_interest_rates',
    metric: 'avg_interest_rate',
    key: () => '',
    unit: 'percent',
    method:
      'Treasury Fiscal Data avg_interest_rates: average interest rate of total marketable debt, newest month.',
  }),
  'absurd_civic/city_nervous_system/rat_sightings_today': ratSightingsToday,
};
