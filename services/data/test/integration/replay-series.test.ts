import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { catalogFor, type CatalogHit } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { playRecordings, testApp, testDeps } from '../support/app.js';

const pathOf = (h: CatalogHit) => `${h.product.category}/${h.product.product}/${h.metric.metric}`;
const LIVE = catalogFor('replay')
  .allMetrics()
  .filter((h) => h.metric.status === 'live');

/**
 * The service's clock in this test: a replayed day's instant when every sport has a game in progress
 * (a replayed game leaves the board a day after its start: docs/replay.md), so live_score's series too
 * holds a game whatever the time of day the test runs at.
 */
const AT = Date.parse('2026-12-14T18:00:30Z');

/**
 * Under replay a metric offered as a series answers a history of it, not the one point a feed played
 * again at each slot keeps; a metric the replay holds no history of is not offered as a series, so the
 * gateway neither documents nor prices one (it reads the same catalogue).
 */
describe('series under replay', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;

  beforeAll(async () => {
    db = await migratedDatabase('data_replay_series');
    const deps = testDeps(db, { INGEST_MODE: 'replay' }, () => AT);
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

  it('answers every metric offered as a series with more than one row', async () => {
    const offered = LIVE.filter((h) => h.metric.series);
    expect(offered.length).toBeGreaterThan(10);
    const thin: Record<string, string> = {};
    for (const hit of offered) {
      const res = await request(app)
        .get(`/v1/data/${pathOf(hit)}?series=true`)
        .set(headers);
      if (res.status !== 200) thin[pathOf(hit)] = `status ${res.status}: ${res.body.detail}`;
      // Sports' series is the recent games the scoreboard holds (data-api-interface 4.2): one game is one row.
      else if (!(res.body.meta.returned >= (hit.product.category === 'sports' ? 1 : 2)))
        thin[pathOf(hit)] = `${res.body.meta.returned} row(s)`;
    }
    expect(thin).toEqual({});
  });

  it('refuses series=true where the replay holds no history, naming the catalogue', async () => {
    const res = await request(app).get('/v1/data/weather/observations/temperature?series=true').set(headers);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/no series answer/);
    // The live catalogue keeps it: a live connector stores every poll.
    expect(catalogFor('live').findMetric('weather', 'observations', 'temperature')!.metric.series).toBe(true);
  });
});
