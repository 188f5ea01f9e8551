// API keys (shown once, verified over the bus, revoked by their owner only, capped per plan) and
// the account: nickname, who the caller is, and the plan billing announces.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { newEvent, type Closable } from '@meridian/bus';
import { waitFor } from '@meridian/bus/testing';
import { DURABLES, EVENTS, RPC, STREAMS, type CloudEvent } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { setPlan } from '../../src/db/repositories/accounts.js';
import { freshEmail, startHarness, type Harness } from './harness.js';
import { anonymous, asSession, signIn, signUpConfirmed, type SignedIn } from './flows.js';

let h: Harness;
const events: CloudEvent[] = [];
let watcher: Closable;

beforeAll(async () => {
  h = await startHarness('identity_keys');
  watcher = await h.bus.consume({
    stream: STREAMS.identity.name,
    durable: 'test__watch',
    filterSubject: 'identity.>',
    handler: async (event) => void events.push(event),
  });
});

afterAll(async () => {
  await watcher?.close();
  await h?.close();
});

describe('API keys', () => {
  let owner: SignedIn;
  let other: SignedIn;

  beforeAll(async () => {
    const [a, b] = [freshEmail(), freshEmail()];
    await signUpConfirmed(h, a);
    await signUpConfirmed(h, b);
    owner = await signIn(h, a);
    other = await signIn(h, b);
  });

  it('creates a key shown once, lists it without the secret, and the RPC verifies it', async () => {
    const res = await request(h.app).post('/v1/keys').set(owner.headers).send({});
    expect(res.status).toBe(201);
    const { id, key, prefix } = res.body.data;
    expect(key).toMatch(/^mk_live_[0-9A-Za-z]{50}$/);
    expect(key.startsWith(prefix)).toBe(true);

    const verified = await h.bus.request(RPC.identityKeyVerify, { key });
    expect(verified).toEqual({ ok: true, data: { account_id: owner.account_id, key_id: id, plan: 'free' } });

    // last_used_at is written off the verify path, at most once a minute per key.
    await waitFor(async () => {
      const row = await h.deps.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.last_used_at != null;
    });
    const account = await request(h.app).get('/v1/account').set(owner.headers);
    expect(account.status).toBe(200);
    expect(account.body.data).toMatchObject({
      plan: 'free',
      entitlements: { plan: 'free', rate_limit_per_minute: 10 },
    });
    expect(account.body.data.keys).toEqual([
      { id, prefix, created_at: expect.any(String), last_used_at: expect.any(String), revoked_at: null },
    ]);
    expect(JSON.stringify(account.body)).not.toContain(key.slice(prefix.length));
  });

  it('refuses a key id no key can have (a NUL, a non-ASCII byte) with a 400 problem, not a 500', async () => {
    for (const id of ['%00', 'a%00b', '%C3%A4']) {
      const res = await request(h.app).post(`/v1/keys/${id}/revoke`).set(owner.headers);
      expect({ id, status: res.status, type: res.type }).toEqual({
        id,
        status: 400,
        type: 'application/problem+json',
      });
    }
  });

  it("refuses to revoke another account's key (404) and revokes its own at once", async () => {
    const { id, key } = (await request(h.app).post('/v1/keys').set(owner.headers).send({})).body.data;
    const foreign = await request(h.app).post(`/v1/keys/${id}/revoke`).set(other.headers);
    expect(foreign.status).toBe(404);
    expect((await h.bus.request(RPC.identityKeyVerify, { key })).ok).toBe(true);
    const res = await request(h.app).post(`/v1/keys/${id}/revoke`).set(owner.headers);
    expect(res.status).toBe(200);
    expect(res.body.data.revoked_at).toEqual(expect.any(String));
    expect(await h.bus.request(RPC.identityKeyVerify, { key })).toMatchObject({
      ok: false,
      problem: { status: 401, error_category: 'unauthorized' },
    });
    await waitFor(() =>
      events.some(
        (e) => e.type === EVENTS.identityKeyRevoked && (e.data as { key_id: string }).key_id === id,
      ),
    );
    expect(
      events.some(
        (e) => e.type === EVENTS.identityKeyCreated && (e.data as { key_id: string }).key_id === id,
      ),
    ).toBe(true);
  });

  it('refuses noise and unknown keys without a match', async () => {
    for (const key of ['nope', 'mk_live_' + 'a'.repeat(50)])
      expect(await h.bus.request(RPC.identityKeyVerify, { key })).toMatchObject({
        ok: false,
        problem: { status: 401 },
      });
  });

  it('refuses account management to a caller who came with an API key (401: no valid session)', async () => {
    const { id } = (await request(h.app).post('/v1/keys').set(owner.headers).send({})).body.data;
    const keysBefore = (await request(h.app).get('/v1/account').set(owner.headers)).body.data.keys;
    const byKey = await callerHeaders({
      account_id: owner.account_id,
      plan: 'free',
      auth: 'api_key',
      key_id: id,
    });
    const attempts = [
      request(h.app).get('/v1/account'),
      request(h.app).put('/v1/account/nickname').send({ nickname: 'KeyHolder' }),
      request(h.app).get('/v1/account/2fa'),
      request(h.app).post('/v1/account/2fa/enrol'),
      request(h.app).post('/v1/account/2fa/activate').send({ code: '123456' }),
      request(h.app).post('/v1/account/2fa/disable').send({ code: '123456' }),
      request(h.app).post('/v1/account/2fa/recovery-codes').send({ code: '123456' }),
      request(h.app).post('/v1/keys').send({}),
      request(h.app).post(`/v1/keys/${id}/revoke`),
    ];
    for (const attempt of attempts) {
      const res = await attempt.set(byKey);
      expect(res.status).toBe(401);
      expect(res.body.error_category).toBe('unauthorized');
    }
    // Nothing changed: no nickname, no second factor, the same keys (this one still live).
    const account = await request(h.app).get('/v1/account').set(owner.headers);
    expect(account.body.data).toMatchObject({ nickname: null, two_factor: 'off', keys: keysBefore });
    expect(keysBefore).toContainEqual(expect.objectContaining({ id, revoked_at: null }));
  });

  it('answers 401 to key routes without a signed-in account', async () => {
    expect(
      (
        await request(h.app)
          .post('/v1/keys')
          .set(await anonymous())
      ).status,
    ).toBe(401);
  });
});

describe('live keys per plan', () => {
  it('caps the live keys by plan (409 saying what to do), counts revoked ones out, and follows the plan', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const me = await signIn(h, email);
    const make = () => request(h.app).post('/v1/keys').set(me.headers).send({});
    const first = await make();
    expect((await make()).status).toBe(201);
    const third = await make();
    expect(third.status).toBe(409);
    expect(third.body).toMatchObject({ status: 409 });
    expect(third.body.detail).toMatch(/free plan holds at most 2 live keys at once; revoke one/);
    const account = await request(h.app).get('/v1/account').set(me.headers);
    expect(account.body.data.entitlements).toMatchObject({ plan: 'free', max_live_keys: 2 });
    expect((await request(h.app).post(`/v1/keys/${first.body.data.id}/revoke`).set(me.headers)).status).toBe(
      200,
    );
    expect((await make()).status).toBe(201);
    await setPlan(h.deps.db, me.account_id, 'pro', new Date());
    for (let i = 0; i < 8; i++) expect((await make()).status).toBe(201);
    expect((await make()).status).toBe(409);
  });
});

describe('account', () => {
  it('sets a unique nickname (409 when taken, any case) and validates it', async () => {
    const [a, b] = [freshEmail(), freshEmail()];
    await signUpConfirmed(h, a);
    await signUpConfirmed(h, b);
    const first = await signIn(h, a);
    const second = await signIn(h, b);
    const nick = `Nick${Date.now() % 100000}`;
    const ok = await request(h.app).put('/v1/account/nickname').set(first.headers).send({ nickname: nick });
    expect(ok.status).toBe(200);
    const taken = await request(h.app)
      .put('/v1/account/nickname')
      .set(second.headers)
      .send({ nickname: nick.toLowerCase() });
    expect(taken.status).toBe(409);
    const bad = await request(h.app)
      .put('/v1/account/nickname')
      .set(second.headers)
      .send({ nickname: 'a b' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('body.nickname');
  });

  it('tells who the caller is by session or by key', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const me = await signIn(h, email);
    const bySession = await request(h.app).get('/v1/agent/whoami').set(me.headers);
    expect(bySession.body.data).toMatchObject({
      account_id: me.account_id,
      auth: 'session',
      plan: 'free',
      session_id: me.session_id,
    });
    const { id } = (await request(h.app).post('/v1/keys').set(me.headers)).body.data;
    const byKey = await request(h.app)
      .get('/v1/agent/whoami')
      .set(await callerHeaders({ account_id: me.account_id, plan: 'free', auth: 'api_key', key_id: id }));
    expect(byKey.body.data).toMatchObject({ auth: 'api_key', key_id: id, session_id: null });
    expect(
      (
        await request(h.app)
          .get('/v1/agent/whoami')
          .set(await anonymous())
      ).status,
    ).toBe(401);
  });

  it('changes the plan when billing announces it, once per event, newest wins', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const me = await signIn(h, email);
    const { key } = (await request(h.app).post('/v1/keys').set(me.headers)).body.data;
    const now = Date.now();
    const upgrade = newEvent('billing', EVENTS.billingPlanChanged, {
      account_id: me.account_id,
      plan: 'pro',
      changed_at: new Date(now).toISOString(),
    });
    const stale = newEvent('billing', EVENTS.billingPlanChanged, {
      account_id: me.account_id,
      plan: 'basic',
      changed_at: new Date(now - 60_000).toISOString(),
    });
    await h.bus.publish(upgrade);
    await h.bus.publish({ ...upgrade });
    await h.bus.publish(stale);
    await waitFor(async () => {
      const r = await h.bus.request<{ plan: string }>(RPC.identityKeyVerify, { key });
      return r.ok && r.data.plan === 'pro';
    });
    await waitFor(async () => {
      const n = await h.deps.db
        .selectFrom('processed_events')
        .select('event_id')
        .where('consumer', '=', DURABLES.identityPlanChanged)
        .execute();
      return n.length >= 2;
    });
    const account = await request(h.app)
      .get('/v1/account')
      .set((await asSession(me)).headers);
    expect(account.body.data.plan).toBe('pro');
    expect(account.body.data.entitlements.metric_plans).toEqual(['free', 'basic', 'pro']);
    await waitFor(() => events.some((e) => e.type === EVENTS.identityAccountPlanChanged));
    const changes = events.filter(
      (e) =>
        e.type === EVENTS.identityAccountPlanChanged &&
        (e.data as { account_id: string }).account_id === me.account_id,
    );
    expect(changes.map((e) => (e.data as { plan: string }).plan)).toEqual(['pro']);
    expect(
      events.some(
        (e) =>
          e.type === EVENTS.identityAccountCreated &&
          (e.data as { account_id: string }).account_id === me.account_id,
      ),
    ).toBe(true);
  });
});
