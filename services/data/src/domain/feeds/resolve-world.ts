import { ok } from '@meridian/contracts';
import type { DataDeps } from '../../deps.js';
import {
  latestObservation,
  latestPerKey,
  observationsBetween,
  type StoredObservation,
} from '../../db/repositories/feeds-observations.js';
import type { MetricQuery, MetricResolver } from '../metric-resolver.js';
import { entityOf, feedAnswer, HOUR, iso, noData, sourceOf } from './answer.js';
import { dayOf, largestQuake, monthOf, quakesIn, utcDayStart, type Quake } from './computations.js';
import type { CatalogHit } from '@meridian/contracts';
import { zonedDayStart } from '../time-zone.js';

/** Products of these metrics take no entity: check it (and the source) the same way everywhere. */
function noEntity(query: MetricQuery, hit: CatalogHit) {
  const entity = entityOf(query, hit);
  if (!entity.ok) return entity;
  return sourceOf(query, hit);
}

const toQuake = (o: StoredObservation): Quake => ({
  id: o.key,
  ts: o.ts,
  magnitude: o.value,
  place: String(o.payload.place ?? ''),
});

/** The USGS answers count against the feed's own time: "the last hour" of the newest feed snapshot. */
async function quakeWindow(deps: DataDeps, query: MetricQuery, window: (asOf: number) => number) {
  const feed = await latestObservation(deps.db, 'usgs_feed', 'all_day', query.now);
  if (!feed) return undefined;
  const to = feed.ts.getTime();
  const from = window(to);
  const quakes = (await observationsBetween(deps.db, 'earthquake', new Date(from), feed.ts)).map(toQuake);
  return { feed, from, to, quakes: quakesIn(quakes, from, to) };
}

const quakesLastHour: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const checked = noEntity(query, hit);
  if (!checked.ok) return checked;
  const w = await quakeWindow(deps, query, (to) => to - HOUR);
  if (!w) return noData('absurd_cosmos/restless_earth/quakes_last_hour');
  return ok(
    await feedAnswer(deps, {
      data: w.quakes.length,
      now: query.now,
      asOf: w.feed.ts,
      sources: [{ venue: 'usgs', ts: iso(w.feed.ts) }],
      method: `USGS all_day GeoJSON feed: earthquakes (any magnitude, worldwide) with origin time in (${iso(new Date(w.from))}, ${iso(w.feed.ts)}], the hour before the feed was generated. Unit: count.`,
      hit,
      replay: { source: 'usgs', file: 'all_day' },
    }),
  );
};

const largestQuakeToday: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const checked = noEntity(query, hit);
  if (!checked.ok) return checked;
  const w = await quakeWindow(deps, query, (to) => utcDayStart(to) - 1);
  if (!w) return noData('absurd_cosmos/restless_earth/largest_quake_today');
  const q = largestQuake(w.quakes);
  return ok(
    await feedAnswer(deps, {
      data: {
        day: dayOf(w.feed.ts),
        unit: 'magnitude',
        quakes_today: w.quakes.length,
        largest: q ? { id: q.id, magnitude: q.magnitude, place: q.place, time: iso(q.ts) } : null,
      },
      now: query.now,
      asOf: w.feed.ts,
      sources: [{ venue: 'usgs', ts: iso(w.feed.ts) }],
      method:
        'USGS all_day GeoJSON feed: the largest magnitude among earthquakes since 00:00 UTC of the day the feed was generated (the earlier one wins a tie).',
      hit,
      replay: { source: 'usgs', file: 'all_day' },
    }),
  );
};

const NYC = 'America/New_York';

const ratSightingsToday: MetricResolver<DataDeps> = async (deps, query, hit) => {
  const checked = noEntity(query, hit);
  if (!checked.ok) return checked;
  const feed = await latestObservation(deps.db, 'nyc_311_feed', 'rat_sightings', query.now);
  if (!feed) return noData('absurd_civic/city_nervous_system/rat_sightings_today');
  const dayStart = zonedDayStart(feed.ts.getTime(), NYC);
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

/** The newest observations of a metric that share the newest timestamp (one snapshot of every key). */
async function newestSnapshot(deps: DataDeps, metric: string, now: Date) {
  const all = await latestPerKey(deps.db, metric, now);
  if (all.length === 0) return undefined;
  const newest = Math.max(...all.map((o) => o.ts.getTime()));
  return { asOf: new Date(newest), rows: all.filter((o) => o.ts.getTime() === newest) };
}

function breakdown(
  metric: string,
  source: string,
  file: string,
  method: string,
  build: (rows: StoredObservation[], asOf: Date) => Record<string, unknown>,
): MetricResolver<DataDeps> {
  return async (deps, query, hit) => {
    const checked = noEntity(query, hit);
    if (!checked.ok) return checked;
    const snap = await newestSnapshot(deps, metric, query.now);
    if (!snap) return noData(`${query.category}/${query.product}/${query.metric}`);
    return ok(
      await feedAnswer(deps, {
        data: { ...build(snap.rows, snap.asOf), unit: 'count' },
        now: query.now,
        asOf: snap.asOf,
        sources: [{ venue: source, ts: iso(snap.asOf) }],
        method,
        hit,
        replay: { source, file },
      }),
    );
  };
}

const valueOf = (rows: StoredObservation[], key: string) => rows.find((r) => r.key === key)?.value ?? null;
const without = (rows: StoredObservation[], key: string) =>
  Object.fromEntries(rows.filter((r) => r.key !== key).map((r) => [r.key, r.value]));

const PUBMED_METHOD =
  'NCBI E-utilities esearch count (retmax=0) of PubMed records by Entrez date of the newest complete day';

export const worldResolvers: Record<string, MetricResolver<DataDeps>> = {
  'absurd_cosmos/restless_earth/quakes_last_hour': quakesLastHour,
  'absurd_cosmos/restless_earth/largest_quake_today': largestQuakeToday,
  'absurd_civic/city_nervous_system/rat_sightings_today': ratSightingsToday,
  'medical/literature/publication_count': breakdown(
    'publication_count',
    'pubmed',
    'esearch_all',
    `${PUBMED_METHOD}.`,
    (rows, asOf) => ({ day: dayOf(asOf), count: valueOf(rows, 'all') }),
  ),
  'medical/literature/publication_count_by_type': breakdown(
    'publication_count',
    'pubmed',
    'esearch_all',
    `${PUBMED_METHOD}, one query per publication type ([Publication Type]); a record may carry several types, so the types need not sum to the total.`,
    (rows, asOf) => ({ day: dayOf(asOf), total: valueOf(rows, 'all'), by_type: without(rows, 'all') }),
  ),
  'medical/guidelines/guideline_downloads': breakdown(
    'guideline_downloads',
    'nice',
    'guidance_downloads',
    'NICE guidance download report: downloads per guideline over the newest reported month, and their total.',
    (rows, asOf) => ({
      period: monthOf(asOf),
      total: rows.reduce((s, r) => s + (r.value ?? 0), 0),
      by_guideline: rows
        .map((r) => ({ guidance_id: r.key, title: r.payload.title, downloads: r.value }))
        .sort((a, b) => (b.downloads ?? 0) - (a.downloads ?? 0)),
    }),
  ),
  'medical/radiology/article_count': breakdown(
    'radiology_articles',
    'radiopaedia',
    'articles_summary',
    'Radiopaedia article summary: total published reference articles.',
    (rows) => ({ count: valueOf(rows, 'all') }),
  ),
  'medical/radiology/article_count_by_category': breakdown(
    'radiology_articles',
    'radiopaedia',
    'articles_summary',
    'Radiopaedia article summary: published reference articles per system (each article is filed under one system, so the categories sum to the total).',
    (rows) => ({ total: valueOf(rows, 'all'), by_category: without(rows, 'all') }),
  ),
};
