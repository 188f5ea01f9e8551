import { ok } from '@meridian/contracts';
import {
  latestObservation,
  observationsBetween,
  type StoredObservation,
} from '../../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../../deps.js';
import {
  dayOf,
  largestQuake,
  quakesIn,
  utcDayStart,
  type Quake,
} from '../../../domain/feeds/computations.js';
import type { MetricQuery, MetricResolver } from '../../../domain/metric-resolver.js';
import { feedAnswer, HOUR, iso, noData, noEntity } from '../feed-answer.js';
import { latestResolver } from './latest.js';

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

/** absurd_cosmos: space weather, the solar cycle, people in space and the restless earth. */
export const cosmosResolvers: Record<string, MetricResolver<DataDeps>> = {
  'absurd_cosmos/space_weather/planetary_kp': latestResolver({
    source: 'noaa_swpc',
    file: 'k-index',
    metric: 'planetary_kp',
    key: () => '',
    unit: 'index',
    method: 'NOAA SWPC planetary K-index (0-9) of the newest 3-hour interval.',
  }),
  'absurd_cosmos/solar_cycle/sunspot_number': latestResolver({
    source: 'noaa_swpc',
    file: 'solar-cycle',
    metric: 'sunspot_number',
    key: () => '',
    unit: 'count',
    method: 'NOAA SWPC observed solar cycle indices: monthly mean sunspot number (ssn) of the newest month.',
  }),
  'absurd_cosmos/off_world/humans_in_space': latestResolver({
    source: 'open_notify',
    file: 'astros',
    metric: 'humans_in_space',
    key: () => '',
    unit: 'count',
    method: 'open-notify astros.json: number of people in space, counted by craft.',
    object: ([o]) => ({ count: o!.value, by_craft: o!.payload.by_craft, people: o!.payload.people }),
  }),
  'absurd_cosmos/restless_earth/quakes_last_hour': quakesLastHour,
  'absurd_cosmos/restless_earth/largest_quake_today': largestQuakeToday,
};
