import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { INTERNAL_ASSERTION_HEADER, type Caller } from '@meridian/contracts';
import { createLogger, createMetrics } from '@meridian/observability';
import {
  accountOf,
  assertionKey,
  createHttpApp,
  finishApp,
  requireCaller,
  sessionAccountOf,
  signCallerAssertion,
} from '../src/index.js';

const key = assertionKey('k'.repeat(40));
const caller: Caller = { account_id: 'acc_1', plan: 'pro', auth: 'session', key_id: null, session_id: 's1' };

function app() {
  const a = createHttpApp({
    logger: createLogger('t', { level: 'silent' }),
    metrics: createMetrics('t', { defaultMetrics: false }),
  });
  const r = express.Router();
  r.get('/who', (req, res) => {
    res.json(req.caller);
  });
  r.get('/account', (req, res) => {
    res.json({ account_id: accountOf(req) });
  });
  r.get('/session-account', (req, res) => {
    res.json({ account_id: sessionAccountOf(req) });
  });
  a.use(requireCaller(key), r);
  return finishApp(a);
}

describe('internal caller assertion', () => {
  it('accepts a valid assertion from the gateway', async () => {
    const token = await signCallerAssertion(caller, key);
    const res = await request(app()).get('/who').set(INTERNAL_ASSERTION_HEADER, token).expect(200);
    expect(res.body).toEqual(caller);
  });

  it('refuses a request without one, with a forged one, or signed with another key', async () => {
    await request(app()).get('/who').set('x-account-id', 'acc_1').expect(401);
    await request(app()).get('/who').set(INTERNAL_ASSERTION_HEADER, 'eyJhbGciOiJub25lIn0.e30.').expect(401);
    const other = await signCallerAssertion(caller, assertionKey('z'.repeat(40)));
    const res = await request(app()).get('/who').set(INTERNAL_ASSERTION_HEADER, other).expect(401);
    expect(res.body.error_category).toBe('unauthorized');
  });

  it('refuses an expired assertion', async () => {
    const old = await signCallerAssertion(caller, key, Date.now() - 120_000);
    await request(app()).get('/who').set(INTERNAL_ASSERTION_HEADER, old).expect(401);
  });

  it('stops accepting a once-verified assertion when it expires', async () => {
    const service = app();
    const token = await signCallerAssertion(caller, key, Date.now() - 59_000);
    await request(service).get('/who').set(INTERNAL_ASSERTION_HEADER, token).expect(200);
    await new Promise((r) => setTimeout(r, 2100));
    await request(service).get('/who').set(INTERNAL_ASSERTION_HEADER, token).expect(401);
  });
});

describe('account accessors', () => {
  const keyCaller: Caller = {
    account_id: 'acc_1',
    plan: 'pro',
    auth: 'api_key',
    key_id: 'k1',
    session_id: null,
  };
  const nobody: Caller = { account_id: null, plan: null, auth: 'anonymous', key_id: null, session_id: null };
  const get = async (path: string, who: Caller) =>
    request(app())
      .get(path)
      .set(INTERNAL_ASSERTION_HEADER, await signCallerAssertion(who, key));

  it('accountOf takes a session or a key, and refuses a caller without an account', async () => {
    expect((await get('/account', caller)).body).toEqual({ account_id: 'acc_1' });
    expect((await get('/account', keyCaller)).body).toEqual({ account_id: 'acc_1' });
    expect((await get('/account', nobody)).status).toBe(401);
  });

  it('sessionAccountOf refuses a key-authenticated caller with the 401 of no valid session', async () => {
    expect((await get('/session-account', caller)).body).toEqual({ account_id: 'acc_1' });
    for (const who of [keyCaller, nobody]) {
      const res = await get('/session-account', who);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error_category: 'unauthorized', retryable: false });
    }
  });
});
