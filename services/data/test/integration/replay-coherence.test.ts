import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { callerHeaders } from '@meridian/http-kit/testing';
import {
  RECORDED_MARKETS,
  RECORDING,
  loadRecordedBars,
} from '../../src/adapters/parsers/spot/recorded-market.js';
import { loopedRange } from '../../src/domain/replay-clock.js';
import { recordedClose, replayedSpotAt } from '../../src/jobs/spot/market-replay.js';
import { ingestPerpRange } from '../../src/jobs/derivatives/perp-replay.js';
import { readRecording, RECORDINGS } from '../../src/adapters/parsers/recordings.js';
import type { Periodic } from '@meridian/runtime';
import {
  calendarOf,
  loadRecordedFeeds,
  refreshFreshFeeds,
  replayBatches,
  shiftOf,
  startRecordedFeeds,
  type Plays,
} from '../../src/jobs/feeds/recorded-feeds.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import { ingestBars } from '../support/recorded.js';

const HOUR = 3_600_000;
/**
 * The instant the replay is played and read at, on the deps' clock: two minutes into the NBA board's
 * replay day (recorded at 02:50 UTC), when two of its games are in progress and one is scheduled at
 * 03:00, so that each check of the games has games to check.
 */
const NOW = Date.parse('2026-11-20T02:52:00Z');

/** Offline, one BTC price level everywhere: spot, the options chain, the perpetuals and the network's market cap. */
describe('replayed data agrees with itself', () => {
  let db: MigratedDatabase;
  /** The rows of a derivatives table: one play of the recording's rows, never two. */
  const count = async (table: 'option_marks') =>
    Number(
      (
        await db.db
          .selectFrom(table)
          .select(({ fn }) => fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** The option marks one play stores at `at`: the recording's options not yet expired then. */
  const optionsOfOnePlay = async (at: Date) => {
    const options = RECORDINGS.find((r) => r.calendar === 'day')!;
    const batches = replayBatches(options, await readRecording(options), at, spotAt);
    return batches.find((b) => b.kind === 'option_marks')!.rows.length;
  };
  let app: RequestListener;
  let headers: Record<string, string>;
  let deps: ReturnType<typeof testDeps>;
  const spotAt = replayedSpotAt();
  const get = (path: string) => request(app).get(path).set(headers);
  const near = (a: number, b: number, within: number) => expect(Math.abs(a / b - 1)).toBeLessThan(within);

  beforeAll(async () => {
    db = await migratedDatabase('data_replay_coherence');
    deps = testDeps(db, {}, () => NOW);
    app = testApp(deps);
    headers = await callerHeaders({ plan: 'ultra', auth: 'api_key', account_id: 'acct_r', key_id: 'key_r' });
    const now = NOW;
    // What the market replay plays: the looped recording of the last 26 hours, spot and perpetuals.
    for (const market of RECORDED_MARKETS) {
      const bars = loopedRange(RECORDING, loadRecordedBars(market), now - 26 * HOUR, now);
      await ingestBars(db.db, market.venue, market.symbol, bars);
    }
    await ingestPerpRange(deps.ingestor, recordedClose, now - 26 * HOUR, now);
    await loadRecordedFeeds(deps, new Date(now), spotAt);
  });
  afterAll(() => db.drop());

  it('answers the options underlying at the replayed spot of its replay day, and says it was scaled', async () => {
    const chain = await get('/v1/data/crypto/options/chain');
    expect(chain.status).toBe(200);
    // Strikes and names hold for a replay day, so the chain is scaled at that day's instant (the
    // recording's time of day), not at each play.
    const options = RECORDINGS.find((r) => r.calendar === 'day')!;
    const played = shiftOf(options, new Date(chain.body.meta.as_of)).clock;
    const anchor = calendarOf(options, played)!.clock(options.recordedAt);
    near(chain.body.data.underlying_px, spotAt(Date.parse(anchor))!, 0.01);
    expect(chain.body.provenance.method).toMatch(
      /BTC prices scaled by [\d.]+ .* to the replayed binanceus BTC-USD close/,
    );
    // Moneyness kept: some strike sits near the scaled underlying, as 9000 did near 9096.
    const strikes = chain.body.data.options.map((o: { strike: number }) => o.strike);
    expect(
      Math.min(...strikes.map((k: number) => Math.abs(k / chain.body.data.underlying_px - 1))),
    ).toBeLessThan(0.03);
  });

  it('answers the perpetuals and the market cap at the same level', async () => {
    const mark = await get('/v1/data/crypto/futures/mark_price');
    expect(mark.status).toBe(200);
    const ts = Date.parse(mark.body.meta.as_of);
    // Recorded in the spot recording's week, the perps need no scaling: within their basis of spot.
    for (const v of mark.body.data.venues as { mark_price_usd: number }[])
      near(v.mark_price_usd, spotAt(ts)!, 0.01);
    const cap = await get('/v1/data/crypto/network/market_cap');
    expect(cap.status).toBe(200);
    near(cap.body.data / 19_788_187.5, spotAt(Date.parse(cap.body.meta.as_of))!, 0.001);
    expect(cap.body.provenance.method).toMatch(/scaled/);
  });

  it('marks every live metric of the catalogue as replayed while the replay plays', async () => {
    const replaying = testApp(testDeps(db, { INGEST_MODE: 'replay' }, () => NOW));
    const res = await request(replaying).get('/v1/catalog').set(headers);
    const metrics = res.body.data.categories.flatMap(
      (c: { products: { metrics: Record<string, unknown>[] }[] }) => c.products.flatMap((p) => p.metrics),
    );
    for (const m of metrics) expect(m.served_from).toBe(m.status === 'live' ? 'replay' : undefined);
    const stored = await get('/v1/catalog');
    expect(stored.body.data.categories[0].products[0].metrics[0].served_from).toBe('stored');
  });

  it('never gives the demo a confidence of 1 beside a part that is hours old', async () => {
    const demo = await get('/v1/demo');
    expect(demo.status).toBe(200);
    expect(demo.body.meta.confidence).toBeLessThan(1);
    // Read three hours after the play, every part it stored is hours old.
    const later = testApp(testDeps(db, {}, () => NOW + 3 * HOUR));
    const stale = await request(later).get('/v1/demo').set(headers);
    expect(stale.status).toBe(200);
    expect(stale.body.meta.staleness_ms).toBeGreaterThan(HOUR);
    expect(stale.body.meta.confidence).toBeLessThan(0.1);
  });

  it('answers weather, network and quakes as fresh as their recording, not days old with confidence 0', async () => {
    for (const path of [
      '/v1/data/weather/observations/temperature?entity=london',
      '/v1/data/crypto/network/market_cap',
      '/v1/data/absurd_cosmos/restless_earth/quakes_last_hour',
      '/v1/data/absurd_earth/tides/water_level',
    ]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, res.body.meta.staleness_ms]).toEqual([path, expect.any(Number)]);
      expect(res.body.meta.staleness_ms).toBeLessThan(HOUR);
      expect(res.body.meta.confidence).toBeGreaterThan(0.1);
      expect(res.body.provenance.method).toMatch(/replayed every/);
    }
  });

  it('shows no game scheduled in the past, and no game in progress since more than a day', async () => {
    const demo = await get('/v1/demo');
    const events = demo.body.data.sports.events as { status: string; start_time: string }[];
    const startsOf = (status: string) =>
      events.filter((e) => e.status === status).map((e) => Date.parse(e.start_time));
    const scheduled = startsOf('scheduled');
    const inProgress = startsOf('in_progress');
    expect(scheduled.length).toBeGreaterThan(0);
    expect(inProgress.length).toBeGreaterThan(0);
    for (const start of scheduled) expect(start).toBeGreaterThan(NOW - 60_000);
    for (const start of inProgress) expect(NOW - start).toBeLessThan(24 * HOUR);
    const live = await get('/v1/data/sports/basketball/live_score');
    expect(live.status).toBe(200);
    const games = live.body.data.games as { start_time: string }[];
    expect(games.length).toBeGreaterThan(0);
    for (const g of games) expect(NOW - Date.parse(g.start_time)).toBeLessThan(24 * HOUR);
  });

  it('plays a fresh feed again at its next slot and keeps one play: nothing counted twice', async () => {
    const quakes = async () =>
      Number(
        (
          await db.db
            .selectFrom('observations')
            .select(({ fn }) => fn.countAll<string>().as('n'))
            .where('metric', '=', 'earthquake')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await quakes();
    expect(before).toBeGreaterThan(0);
    const later = new Date(NOW + 16 * 60_000);
    await refreshFreshFeeds(deps, later, spotAt);
    const plays = await db.db
      .selectFrom('observations')
      .select('ts')
      .where('metric', '=', 'replay')
      .where('source', '=', 'usgs')
      .execute();
    expect(plays).toHaveLength(1);
    // The earlier play's quakes were deleted: the same recorded day's quakes, once.
    expect(await quakes()).toBe(before);
    // The options chain is replaced the same way: one play of each row.
    expect(await count('option_marks')).toBe(await optionsOfOnePlay(later));
    const marker = plays[0]!.ts.getTime();
    expect(marker).toBe(Math.floor(later.getTime() / 60_000) * 60_000);
  });

  it('plays again only the feeds whose slot turned, and deletes their earlier play without parsing it again', async () => {
    // A slot start of every cadence (6, 10 and 15 min divide 30 min; 180 min is a multiple), then one minute on.
    const first = Math.ceil((NOW + 20 * 60_000) / (30 * 60_000)) * 30 * 60_000;
    const plays: Plays = new Map();
    const fresh = RECORDINGS.filter((r) => r.refreshMs);
    await refreshFreshFeeds(deps, new Date(first), spotAt, plays);
    const parses = fresh.map((r) => jest.spyOn(r, 'parse'));
    try {
      const played = await refreshFreshFeeds(deps, new Date(first + 60_000), spotAt, plays);
      const everyMinute = fresh.filter((r) => r.refreshMs === 60_000).map((r) => r.file);
      expect(played).toEqual(everyMinute);
      expect(everyMinute.length).toBeLessThan(fresh.length);
      // One parse per play: the earlier play's rows are deleted by the keys kept in `plays`.
      expect(fresh.map((r, i) => [r.file, parses[i]!.mock.calls.length])).toEqual(
        fresh.map((r) => [r.file, everyMinute.includes(r.file) ? 1 : 0]),
      );
    } finally {
      for (const p of parses) p.mockRestore();
    }
    const markers = await db.db
      .selectFrom('observations')
      .select(['key', 'ts'])
      .where('metric', '=', 'replay')
      .where(
        'key',
        'in',
        fresh.map((r) => r.file),
      )
      .execute();
    expect(markers.map((m) => m.key).sort()).toEqual(fresh.map((r) => r.file).sort());
    const slotOf = (file: string) => {
      const ms = fresh.find((r) => r.file === file)!.refreshMs!;
      return Math.floor((first + 60_000) / ms) * ms;
    };
    for (const m of markers) expect([m.key, m.ts.getTime()]).toEqual([m.key, slotOf(m.key)]);
    expect(await count('option_marks')).toBe(await optionsOfOnePlay(new Date(first + 60_000)));
  });
});

describe('the recorded feeds of a start', () => {
  it('parse each recording once: the load plays the day-shifted ones, the refresh the fresh ones', async () => {
    const db = await migratedDatabase('data_feeds_start');
    const parses = RECORDINGS.map((r) => jest.spyOn(r, 'parse'));
    let refresh: Periodic | undefined;
    try {
      refresh = await startRecordedFeeds(testDeps(db), replayedSpotAt());
      expect(RECORDINGS.map((r, i) => [r.file, parses[i]!.mock.calls.length])).toEqual(
        RECORDINGS.map((r) => [r.file, 1]),
      );
      // Every recording was played by the time the start's feeds resolve: its replay marker is there.
      const markers = await db.db
        .selectFrom('observations')
        .select('key')
        .where('metric', '=', 'replay')
        .execute();
      expect(new Set(markers.map((m) => m.key))).toEqual(new Set(RECORDINGS.map((r) => r.file)));
    } finally {
      for (const p of parses) p.mockRestore();
      await refresh?.stop();
      await db.drop();
    }
  });
});
