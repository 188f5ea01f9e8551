import type { IngestBatchInput } from '@meridian/contracts';
import type { ReplayClock } from '../../../domain/replay-clock.js';
import { observationBatch, type ObservationInput } from './observations.js';

interface OpenMeteoCurrent {
  current: { time: string; temperature_2m?: number; wind_speed_10m?: number; precipitation?: number };
}

/**
 * Open-Meteo forecast API `current=` answer (timezone GMT, so `time` is UTC); one location or the
 * array it answers for several coordinates, in the order of `keys`.
 */
export function parseOpenMeteo(text: string, keys: string[], clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as OpenMeteoCurrent | OpenMeteoCurrent[];
  const list = Array.isArray(doc) ? doc : [doc];
  const rows: ObservationInput[] = [];
  list.forEach((loc, i) => {
    const key = keys[i];
    if (!key) return;
    const ts = clock(`${loc.current.time}:00Z`);
    const c = loc.current;
    if (c.temperature_2m !== undefined)
      rows.push({ key, metric: 'temperature', ts, value: c.temperature_2m });
    if (c.wind_speed_10m !== undefined) rows.push({ key, metric: 'wind_speed', ts, value: c.wind_speed_10m });
    if (c.precipitation !== undefined)
      rows.push({ key, metric: 'precipitation', ts, value: c.precipitation });
  });
  return observationBatch('open_meteo', rows);
}

interface SwpcKpRow {
  time_tag: string;
  Kp: number | string;
  a_running: number | string;
  station_count: number | string;
}

/** SWPC's time tags, `2024-11-13 00:00:00.000` or `2026-05-21T00:00:00`, are UTC without a zone. */
const swpcUtc = (tag: string) =>
  `${tag
    .replace(' ', 'T')
    .replace(/Z$/, '')
    .replace(/\.\d+$/, '')}Z`;

/**
 * NOAA SWPC noaa-planetary-k-index.json, in either of its formats: until spring 2026 a header row
 * then [time_tag, Kp, a_running, station_count] strings (the recording); since, an array of objects
 * with those keys and numbers (SWPC's JSON change notice). Any other row is not this format.
 */
export function parseSwpcKp(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as unknown[];
  if (!Array.isArray(doc)) throw new Error('SWPC Kp: not an array');
  const rows: SwpcKpRow[] = doc.flatMap((r): SwpcKpRow[] => {
    if (Array.isArray(r)) {
      const [time_tag, Kp, a_running, station_count] = r as string[];
      return time_tag === 'time_tag'
        ? []
        : [{ time_tag: time_tag!, Kp: Kp!, a_running: a_running!, station_count: station_count! }];
    }
    const o = r as SwpcKpRow;
    if (typeof o?.time_tag !== 'string') throw new Error('SWPC Kp: a row without time_tag');
    // A Kp not yet determined is no reading (Number(null) would read 0).
    return o.Kp === null || o.Kp === '' ? [] : [o];
  });
  return observationBatch(
    'noaa_swpc',
    rows.map((r) => ({
      key: '',
      metric: 'planetary_kp',
      ts: clock(swpcUtc(r.time_tag)),
      value: Number(r.Kp),
      payload: { a_running: Number(r.a_running), station_count: Number(r.station_count) },
    })),
  );
}

/** NOAA SWPC observed-solar-cycle-indices.json: monthly {time-tag: 'YYYY-MM', ssn, ...}. */
export function parseSwpcSunspots(text: string, clock: ReplayClock): IngestBatchInput {
  const rows = JSON.parse(text) as Record<string, number | string>[];
  return observationBatch(
    'noaa_swpc',
    rows.map((r) => ({
      key: '',
      metric: 'sunspot_number',
      ts: clock(`${String(r['time-tag'])}-01T00:00:00Z`),
      value: Number(r.ssn),
      payload: { observed_swpc_ssn: Number(r.observed_swpc_ssn), f10_7: Number(r['f10.7']) },
    })),
  );
}

interface UsgsFeed {
  metadata: { generated: number; title: string; count: number };
  features: {
    id: string;
    properties: { mag: number | null; place: string; time: number; type: string };
    geometry: { coordinates: number[] };
  }[];
}

/**
 * USGS GeoJSON summary feed: one observation per event (value = magnitude) and one for the feed
 * itself (value = event count), whose time bounds "the last hour" and "today" of the answers.
 */
export function parseUsgsFeed(text: string, clock: ReplayClock): IngestBatchInput {
  const feed = JSON.parse(text) as UsgsFeed;
  const rows: ObservationInput[] = feed.features
    .filter((f) => f.properties.type === 'earthquake')
    .map((f) => ({
      key: f.id,
      metric: 'earthquake',
      ts: clock(f.properties.time),
      value: f.properties.mag,
      payload: { place: f.properties.place, depth_km: f.geometry.coordinates[2] ?? null },
    }));
  rows.push({
    key: 'all_day',
    metric: 'usgs_feed',
    ts: clock(feed.metadata.generated),
    value: feed.metadata.count,
    payload: { title: feed.metadata.title },
  });
  return observationBatch('usgs', rows);
}

/** open-notify astros.json carries no time: the recording's time stands for it. */
export function parseAstros(text: string, recordedAt: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as { number: number; people: { name: string; craft: string }[] };
  const byCraft: Record<string, number> = {};
  for (const p of doc.people) byCraft[p.craft] = (byCraft[p.craft] ?? 0) + 1;
  return observationBatch('open_notify', [
    {
      key: '',
      metric: 'humans_in_space',
      ts: clock(recordedAt),
      value: doc.number,
      payload: { by_craft: byCraft, people: doc.people },
    },
  ]);
}

/** NOAA CO-OPS datagetter water_level JSON (time_zone=gmt, units=metric, datum MLLW). */
export function parseNoaaWaterLevel(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as {
    metadata: { id: string; name: string };
    data: { t: string; v: string; q: string }[];
  };
  return observationBatch(
    'noaa_tides',
    doc.data.map((d) => ({
      key: doc.metadata.id,
      metric: 'water_level',
      ts: clock(`${d.t.replace(' ', 'T')}:00Z`),
      value: Number(d.v),
      payload: {
        station: doc.metadata.name,
        datum: 'MLLW',
        quality: d.q === 'v' ? 'verified' : 'preliminary',
      },
    })),
  );
}
