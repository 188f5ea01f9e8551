import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { callerHeaders } from '@meridian/http-kit/testing';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';

/** Right after a start the replay is still loading: a metric with no data yet is 503, not 404. */
describe('first load after a start', () => {
  let db: MigratedDatabase;
  let headers: Record<string, string>;

  beforeAll(async () => {
    db = await migratedDatabase('data_first_load');
    headers = await callerHeaders({
      plan: 'ultra',
      auth: 'api_key',
      account_id: 'acct_fl',
      key_id: 'key_fl',
    });
  });
  afterAll(() => db.drop());

  it('answers 503 with Retry-After and retryable true while loading, /ready waits; 404 once loaded', async () => {
    const deps = testDeps(db, { INGEST_MODE: 'replay' });
    const app = testApp(deps);
    const chain = await request(app).get('/v1/data/crypto/options/chain').set(headers);
    expect(chain.status).toBe(503);
    expect(chain.headers['retry-after']).toBe('5');
    expect(chain.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(chain.body).toMatchObject({ status: 503, retryable: true, retry_after: 5 });
    expect(chain.body.detail).toMatch(/still loading/);
    expect((await request(app).get('/ready')).status).toBe(503);
    deps.firstLoad.settle();
    const after = await request(app).get('/v1/data/crypto/options/chain').set(headers);
    expect(after.status).toBe(404);
    expect((await request(app).get('/ready')).status).toBe(200);
  });

  it('has nothing to wait for without replay', async () => {
    const app = testApp(testDeps(db));
    expect((await request(app).get('/v1/data/crypto/options/chain').set(headers)).status).toBe(404);
    expect((await request(app).get('/ready')).status).toBe(200);
  });
});
