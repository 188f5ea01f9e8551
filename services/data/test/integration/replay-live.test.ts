import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { allMetrics, replaySourceOf, type CatalogHit } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { RECORDINGS } from '../../src/adapters/parsers/recordings.js';
import { feedResolvers } from '../../src/flows/resolve/index.js';
import type { MetricAnswer } from '../../src/domain/metric-resolver.js';
import { replayedSpotAt } from '../../src/jobs/spot/market-replay.js';
import { loadRecordedFeeds } from '../../src/jobs/feeds/recorded-feeds.js';
import { loadRecordedBars, RECORDED_MARKETS } from '../../src/adapters/parsers/spot/recorded-market.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { playRecordings, testApp, testDeps } from '../support/app.js';

const toMs = (hms: string) => {
  const [h, m, sec] = hms.split(':').map(Number) as [number, number, number];
  return ((h * 60 + m) * 60 + sec) * 1000;
};
const pathOf = (h: CatalogHit) => `${h.product.category}/${h.product.product}/${h.metric.metric}`;
const LIVE = allMetrics().filter((h) => h.metric.status === 'live');

/**
 * The floor of a live-looking confidence. It is (1 - 0.5^n) x freshness (x agreement), n the venues used:
 * at most 0.5 for the one source of most feeds, 0.75 for two. So: at least 0.5 from two venues or more
 * (crypto spot, futures); from one source, at least what a value exactly its metric's max age old scores
 * (0.5 x e^-1 = 0.184), the catalogue's own line between on time and overdue. A stricter line for one
 * source (half its ceiling) fails on M2 at the worst instant of some months: the Fed publishes it about
 * two months late and monthly, so a live service scores it that low too (0.251 on 2026-12-14 14:59:50).
 */
const floorOf = (venues: number) => (venues >= 2 ? 0.5 : 0.5 * Math.exp(-1));

interface Seen {
  path: string;
  confidence: number;
  staleness_ms: number;
  venues: string[];
  excluded: { reason: string; venue?: string; symbol?: string }[];
}

/** What is wrong with an answer for a replay that must look live, its exclusions apart; [] when nothing. */
function notLive(hit: CatalogHit, a: Seen): string[] {
  const wrong: string[] = [];
  if (a.confidence < floorOf(a.venues.length))
    wrong.push(`confidence ${a.confidence} below ${floorOf(a.venues.length)} (${a.venues.length} venues)`);
  const maxAge = hit.metric.max_age_ms;
  if (maxAge !== undefined && a.staleness_ms > maxAge) wrong.push(`${a.staleness_ms} ms old, max ${maxAge}`);
  return wrong;
}

/** The markets an answer excluded as stale, as "venue symbol". */
const staleOf = (excluded: Seen['excluded']) =>
  excluded
    .filter((e) => /stale/i.test(e.reason))
    .map((e) => `${e.venue} ${/^spot (\S+): /.exec(e.reason)?.[1] ?? e.symbol}`);

/**
 * The replay clock's edges, each read at a fixed instant. The market replay plays wall time w at
 * recorded time 2023-03-08 + (w mod 7 days), the loop aligned to the epoch; `bar` is the recorded
 * minute of the newest 1m bar that has closed at the instant (written out here, not computed: the
 * instant is 90 s after it opened), and `stale` the recorded markets with no trade in the quarter hour
 * (the catalogue's max age of crypto/spot) before the instant, checked on the rows below: only those may
 * be dropped as stale, as a live venue without trades would be.
 */
const EDGES = [
  // Midnight UTC: every fresh feed's slot turns, the UTC day of the 24 h metrics and quakes too.
  { name: 'midnight', at: '2026-12-14T00:00:30Z', bar: '2023-03-11T23:59:00Z', stale: [] as string[] },
  // The loop's seam: the recording wraps from 2023-03-14 23:59 to 2023-03-08 00:00 at 2026-12-17 00:00;
  // Binance.US's BTC-USDC last traded at 23:45 before it.
  {
    name: 'the seam',
    at: '2026-12-17T00:00:30Z',
    bar: '2023-03-14T23:59:00Z',
    stale: ['binanceus BTC-USDC'],
  },
  // A gap of the recording: Kraken's BTC-USDC has no trade from 2023-03-09 11:49 to 12:12.
  { name: 'a gap', at: '2026-12-11T12:10:30Z', bar: '2023-03-09T12:09:00Z', stale: ['kraken BTC-USDC'] },
];

/** The quarter hour of the recording before an edge's instant (the instant is 90 s after its `bar`). */
const quarterHourBefore = (bar: string) => ({
  from: Date.parse(bar) + 90_000 - 15 * 60_000,
  to: Date.parse(bar),
});

/** The all-in-one replay (recorded time shifted onto the present) answers like a live service. */
describe.each(EDGES)('replay looks live at $name ($at)', ({ at, bar, stale }) => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;

  beforeAll(async () => {
    db = await migratedDatabase(`data_replay_live_${Date.parse(at) / 1000}_http`);
    const deps = testDeps(db, { INGEST_MODE: 'replay' }, () => Date.parse(at));
    app = testApp(deps);
    headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_rl',
      key_id: 'key_rl',
    });
    await playRecordings(deps);
  });
  afterAll(() => db.drop());

  it('answers every live metric of the catalogue fresh, with confidence, dropping only the markets the recording leaves without trades, saying it is a replay', async () => {
    expect(LIVE.length).toBeGreaterThanOrEqual(60);
    const problems: Record<string, string[]> = {};
    const dropped = new Set<string>();
    for (const hit of LIVE) {
      const path = pathOf(hit);
      const res = await request(app).get(`/v1/data/${path}`).set(headers);
      if (res.status !== 200) {
        problems[path] = [`status ${res.status}: ${res.body.detail}`];
        continue;
      }
      const excluded = res.body.provenance.excluded ?? [];
      staleOf(excluded).forEach((m) => dropped.add(m));
      const wrong = notLive(hit, { path, ...res.body.meta, excluded } as Seen);
      // Said so: the market replay's note, or the feed's method naming the recording's real date.
      const method = res.body.provenance.method as string;
      if (!res.body.meta.replay && !/replay/i.test(method)) wrong.push('not said to be a replay');
      if (!/(recorded|of) 20\d\d-\d\d-\d\d/.test(method)) wrong.push(`no real recording date: ${method}`);
      if (wrong.length > 0) problems[path] = wrong;
    }
    expect(problems).toEqual({});
    expect([...dropped].sort()).toEqual(stale);
  });

  it('serves as the newest 1m bar of every recorded market the recorded row of its minute', async () => {
    for (const market of RECORDED_MARKETS) {
      const res = await request(app)
        .get(`/v1/data/crypto/spot/ohlcv?entity=${market.symbol}&source=${market.venue}&interval=1m`)
        .set(headers);
      expect([market.venue, market.symbol, res.status]).toEqual([market.venue, market.symbol, 200]);
      const newest = res.body.data.at(-1) as { ts: string; open: number; close: number; volume: number };
      const recorded = loadRecordedBars(market).findLast((b) => b.ts <= Date.parse(bar))!;
      // Kraken leaves out the minutes without trades: its newest bar is then an earlier minute's.
      expect(Date.parse(at) - Date.parse(newest.ts)).toBe(Date.parse(bar) + 90_000 - recorded.ts);
      expect([newest.open, newest.close, newest.volume]).toEqual([
        recorded.open,
        recorded.close,
        recorded.volume,
      ]);
    }
  });
});

describe('the recording at the edges read above', () => {
  it.each(EDGES)(
    'at $name has trades in the quarter hour before in every market but $stale',
    ({ bar, stale }) => {
      const { from, to } = quarterHourBefore(bar);
      for (const market of RECORDED_MARKETS) {
        const traded = loadRecordedBars(market).filter((b) => b.ts >= from && b.ts <= to && b.volume > 0);
        const name = `${market.venue} ${market.symbol}`;
        expect([name, traded.length > 0]).toEqual([name, !stale.includes(name)]);
      }
    },
  );
});

/** What is wrong with an answer's statement of its replay (meta.replay and the sources' recorded times). */
function replayStatementWrong(path: string, body: ReplayedBody): string[] {
  const r = body.meta.replay;
  if (!r) return ['no meta.replay'];
  const wrong: string[] = [];
  if (r.live !== false) wrong.push(`live ${String(r.live)}`);
  if (r.played_at !== body.meta.as_of) wrong.push(`played_at ${r.played_at} is not as_of ${body.meta.as_of}`);
  // Every recording was made before 2025; a replay plays it in the present.
  if (!(r.recorded_at < '2025') || !(Date.parse(r.played_at) > Date.parse(r.recorded_at)))
    wrong.push(`recorded_at ${r.recorded_at}, played_at ${r.played_at}`);
  // What the catalogue, the documents and the challenge say before payment (contracts' replaySourceOf).
  const kind = replaySourceOf(...(path.split('/') as [string, string, string]));
  if (r.kind !== kind) wrong.push(`kind ${r.kind}, the documents say ${kind}`);
  for (const s of body.provenance.sources) {
    if (!s.recorded_ts || !(s.recorded_ts < '2025'))
      wrong.push(`source ${s.venue} ${s.ts}: recorded_ts ${s.recorded_ts}`);
  }
  const played = body.provenance.sources.find((s) => s.ts === r.played_at);
  if (played && played.recorded_ts !== r.recorded_at)
    wrong.push(`recorded_at ${r.recorded_at} is not the newest source's ${played.recorded_ts}`);
  return wrong;
}

interface ReplayedBody {
  meta: {
    as_of: string;
    replay?: { live: unknown; kind: string; recorded_at: string; played_at: string };
  };
  provenance: { sources: { venue: string; ts: string; recorded_ts?: string }[] };
}

/** Every answer of a replay says so the same way, before a customer relies on it. */
describe('replay says what it plays', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;

  beforeAll(async () => {
    db = await migratedDatabase('data_replay_said');
    const deps = testDeps(db, { INGEST_MODE: 'replay' }, () => Date.parse(EDGES[0]!.at));
    app = testApp(deps);
    headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_rs',
      key_id: 'key_rs',
    });
    await playRecordings(deps);
  });
  afterAll(() => db.drop());

  it('gives every live metric meta.replay (kind, recorded_at, played_at) and each source its recorded_ts', async () => {
    const problems: Record<string, string[]> = {};
    for (const hit of LIVE) {
      const path = pathOf(hit);
      const res = await request(app).get(`/v1/data/${path}`).set(headers);
      const wrong =
        res.status === 200 ? replayStatementWrong(path, res.body as ReplayedBody) : [`status ${res.status}`];
      if (wrong.length > 0) problems[path] = wrong;
    }
    expect(problems).toEqual({});
  });

  it('says in the catalogue and the demo that it replays, and what each metric plays', async () => {
    const catalog = (await request(app).get('/v1/catalog').set(headers)).body.data;
    expect(catalog.replay).toMatch(
      /^This deployment serves replay .* Real recordings: crypto\/spot, crypto\/options, crypto\/futures\./,
    );
    const metric = (category: string, product: string, name: string) =>
      catalog.categories
        .find((c: { category: string }) => c.category === category)
        .products.find((p: { product: string }) => p.product === product)
        .metrics.find((m: { metric: string }) => m.metric === name);
    expect(metric('weather', 'observations', 'temperature')).toMatchObject({
      served_from: 'replay',
      replayed_from: 'sample',
      description: expect.stringContaining('hand-written sample'),
    });
    expect(metric('crypto', 'options', 'chain')).toMatchObject({ replayed_from: 'recording' });
    const demo = (await request(app).get('/v1/demo').set(headers)).body;
    expect(demo.meta.replay).toMatchObject({ live: false, kind: 'mixed' });
    expect(demo.provenance.method).toContain('This deployment serves replay');
  });

  it('maps a played bar back to its recorded minute and a monthly series back by whole months', async () => {
    const spot = await request(app).get('/v1/data/crypto/spot/reference_price').set(headers);
    const s = spot.body.meta.replay;
    expect(s.recorded).toMatch(/binanceus:BTC-USD/);
    // The looped mapping moves whole minutes: the seconds of the played close are those of the recorded one.
    expect(s.recorded_at >= '2023-03-08' && s.recorded_at < '2023-03-15').toBe(true);
    expect(s.recorded_at.slice(14)).toBe(s.played_at.slice(14));
    const m2 = await request(app).get('/v1/data/macro/money/m2_money_supply').set(headers);
    const r = m2.body.meta.replay;
    expect(r.kind).toBe('sample');
    expect(r.recorded).toMatch(/recordings\/fred\/M2SL/);
    expect(r.recorded_at.slice(8)).toBe(r.played_at.slice(8));
  });
});

/**
 * The same at the worst instants of the replay clock: a recording shifted by whole days (or months: the
 * monthly ones were recorded on the 14th) is oldest just before its recorded time of day comes round
 * again, a fresh feed just before its slot turns (every slot, 1 min to 3 h, turns at 00:00). So: 10 s
 * before each recorded time of day, on a 14th, and 10 s before midnight. Each instant plays the
 * recordings into a database of its own and reads every feed metric at that instant.
 */
describe('replay looks live at any time of day and month', () => {
  const timesOfDay = new Set(
    RECORDINGS.filter((r) => r.refreshMs === undefined).map((r) => r.recordedAt.slice(11, 19)),
  );
  const instants = [...timesOfDay, '24:00:00']
    .sort()
    .map((t) => new Date(Date.parse(`2026-12-14T00:00:00Z`) + toMs(t) - 10_000).toISOString());

  it.each(instants)('at %s', async (at) => {
    const db = await migratedDatabase(`data_replay_live_${Date.parse(at) / 1000}`);
    expect(instants.length).toBeGreaterThanOrEqual(8);
    try {
      const deps = testDeps(db);
      const now = new Date(at);
      await loadRecordedFeeds(deps, now, replayedSpotAt());
      const problems: Record<string, string[]> = {};
      // crypto/futures is played with spot by the market replay, every minute (the first test reads it).
      for (const hit of LIVE.filter(
        (h) => feedResolvers[pathOf(h)] && !pathOf(h).startsWith('crypto/futures/'),
      )) {
        const path = pathOf(hit);
        const result = await feedResolvers[path]!(
          deps,
          {
            category: hit.product.category,
            product: hit.product.product,
            metric: hit.metric.metric,
            entity: hit.product.default_entity,
            series: false,
            now,
          },
          hit,
        );
        if (!result.ok) problems[path] = [`${result.code}: ${result.detail}`];
        else {
          const a: MetricAnswer = result.value;
          const wrong = notLive(hit, { path, ...a, excluded: a.excluded ?? [] });
          wrong.push(...staleOf(a.excluded ?? []).map((m) => `excluded as stale: ${m}`));
          if (wrong.length > 0) problems[path] = wrong;
        }
      }
      expect(problems).toEqual({});
    } finally {
      await db.drop();
    }
  });
});
