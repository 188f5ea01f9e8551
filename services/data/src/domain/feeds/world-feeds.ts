import type { IngestBatchInput, ObservationRow } from '@meridian/contracts';
import { csvRecords } from './csv.js';
import type { ReplayClock } from '../replay-clock.js';

type Row = Omit<ObservationRow, 'payload'> & { payload?: Record<string, unknown> };
const batch = (source: string, rows: Row[]): IngestBatchInput => ({ kind: 'observations', source, rows });

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
  const rows: Row[] = [];
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
  return batch('open_meteo', rows);
}

/** NOAA SWPC noaa-planetary-k-index.json: a header row, then [time_tag, Kp, a_running, station_count]. */
export function parseSwpcKp(text: string, clock: ReplayClock): IngestBatchInput {
  const [, ...rows] = JSON.parse(text) as string[][];
  return batch(
    'noaa_swpc',
    rows.map((r) => ({
      key: '',
      metric: 'planetary_kp',
      ts: clock(`${r[0]!.replace(' ', 'T').replace(/\.\d+$/, '')}Z`),
      value: Number(r[1]),
      payload: { a_running: Number(r[2]), station_count: Number(r[3]) },
    })),
  );
}

/** NOAA SWPC observed-solar-cycle-indices.json: monthly {time-tag: 'YYYY-MM', ssn, ...}. */
export function parseSwpcSunspots(text: string, clock: ReplayClock): IngestBatchInput {
  const rows = JSON.parse(text) as Record<string, number | string>[];
  return batch(
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
  const rows: Row[] = feed.features
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
  return batch('usgs', rows);
}

/** open-notify astros.json carries no time: the recording's time stands for it. */
export function parseAstros(text: string, recordedAt: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as { number: number; people: { name: string; craft: string }[] };
  const byCraft: Record<string, number> = {};
  for (const p of doc.people) byCraft[p.craft] = (byCraft[p.craft] ?? 0) + 1;
  return batch('open_notify', [
    {
      key: '',
      metric: 'humans_in_space',
      ts: clock(recordedAt),
      value: doc.number,
      payload: { by_craft: byCraft, people: doc.people },
    },
  ]);
}

/** Federal Register /documents/facets/type for one publication day: {RULE: {count, name}, ...}. */
export function parseFederalRegisterFacets(
  text: string,
  recordedAt: string,
  clock: ReplayClock,
): IngestBatchInput {
  const doc = JSON.parse(text) as Record<string, { count: number; name: string }>;
  const byType = Object.fromEntries(Object.values(doc).map((f) => [f.name, f.count]));
  const total = Object.values(doc).reduce((s, f) => s + f.count, 0);
  return batch('federal_register', [
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
  const sightings: Row[] = rows
    .filter((r) => r.descriptor === 'Rat Sighting')
    .map((r) => ({
      key: r.unique_key,
      metric: 'rat_sighting',
      ts: clock(zonedToUtc(r.created_date, 'America/New_York')),
      value: 1,
      payload: { borough: r.borough },
    }));
  sightings.push({ key: 'rat_sightings', metric: 'nyc_311_feed', ts: clock(recordedAt), value: rows.length });
  return batch('nyc_311', sightings);
}

/** Treasury Fiscal Data debt_to_penny: tot_pub_debt_out_amt in USD, dated record_date. */
export function parseDebtToPenny(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as { data: Record<string, string>[] };
  return batch(
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
  return batch(
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

/** NOAA CO-OPS datagetter water_level JSON (time_zone=gmt, units=metric, datum MLLW). */
export function parseNoaaWaterLevel(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as {
    metadata: { id: string; name: string };
    data: { t: string; v: string; q: string }[];
  };
  return batch(
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

/** NCBI E-utilities esearch JSON with retmax=0: esearchresult.count for one query. */
export function parsePubmedCount(
  text: string,
  key: string,
  day: string,
  clock: ReplayClock,
): IngestBatchInput {
  const doc = JSON.parse(text) as { esearchresult: { count: string; querytranslation: string } };
  return batch('pubmed', [
    {
      key,
      metric: 'publication_count',
      ts: clock(`${day}T00:00:00Z`),
      value: Number(doc.esearchresult.count),
      payload: { query: doc.esearchresult.querytranslation },
    },
  ]);
}

/** NICE guidance download report CSV: guidance_id,title,month,downloads (one month). */
export function parseNiceDownloads(text: string, clock: ReplayClock): IngestBatchInput {
  return batch(
    'nice',
    csvRecords(text).map((r) => ({
      key: r.guidance_id!,
      metric: 'guideline_downloads',
      ts: clock(`${r.month}-01T00:00:00Z`),
      value: Number(r.downloads),
      payload: { title: r.title },
    })),
  );
}

/** Radiopaedia article summary: total and per-system counts (each article filed under one system). */
export function parseRadiopaediaSummary(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as {
    generated_at: string;
    articles: { total: number; by_system: { system: string; count: number }[] };
  };
  const ts = clock(doc.generated_at);
  return batch('radiopaedia', [
    { key: 'all', metric: 'radiology_articles', ts, value: doc.articles.total },
    ...doc.articles.by_system.map((s) => ({
      key: s.system,
      metric: 'radiology_articles',
      ts,
      value: s.count,
    })),
  ]);
}

/** The UTC instant of a wall-clock time in an IANA zone (offset looked up for that instant). */
export function zonedToUtc(wall: string, timeZone: string): string {
  const asUtc = Date.parse(`${wall.replace(/\.\d+$/, '')}Z`);
  const offset = zoneOffsetMs(asUtc, timeZone);
  const guess = asUtc - offset;
  return new Date(asUtc - zoneOffsetMs(guess, timeZone)).toISOString();
}

/** Start of the wall-clock day (in `timeZone`) that contains `instant`, as a UTC instant. */
export function zonedDayStart(instant: number, timeZone: string): number {
  const wall = new Date(instant + zoneOffsetMs(instant, timeZone)).toISOString().slice(0, 10);
  return Date.parse(zonedToUtc(`${wall}T00:00:00`, timeZone));
}

function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(instant))
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(parts ?? '');
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
}
