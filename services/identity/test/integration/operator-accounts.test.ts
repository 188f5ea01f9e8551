import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { callerHeaders, operatorHeaders } from '@meridian/http-kit/testing';
import { changeOperatorRole } from '../../src/flows/operator-role.js';
import { freshEmail, startHarness, type Harness } from './harness.js';
import { signIn, signUpConfirmed, type SignedIn } from './flows.js';

/** What the operator console reads of identity: who accounts are, and the log of the operator role. */
describe('operator console reads of identity', () => {
  let h: Harness;
  const operator = randomUUID();
  const emails = [freshEmail(), freshEmail()];
  let people: SignedIn[];

  beforeAll(async () => {
    h = await startHarness('identity_operator_accounts');
    people = [];
    for (const email of emails) {
      await signUpConfirmed(h, email);
      people.push(await signIn(h, email));
    }
    await request(h.app).put('/v1/account/nickname').set(people[0]!.headers).send({ nickname: 'Ada' });
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 12, minute));
    await changeOperatorRole(
      h.deps.db,
      { email: emails[0]!, grant: true, by: { bootstrap: true }, reason: 'desk' },
      at(0),
    );
    await changeOperatorRole(
      h.deps.db,
      { email: emails[1]!, grant: true, by: { operator_email: emails[0]! }, reason: 'desk' },
      at(1),
    );
    await changeOperatorRole(
      h.deps.db,
      { email: emails[0]!, grant: false, by: { operator_email: emails[1]! }, reason: 'left the desk' },
      at(2),
    );
    // Two sign-ups and sign-ins hash passwords at the production cost: minutes on a busy machine.
  }, 180_000);
  afterAll(async () => h?.close());

  const get = async (path: string, headers?: Record<string, string>) =>
    request(h.app)
      .get(path)
      .set(headers ?? (await operatorHeaders(operator)));

  it('refuses a session without the operator role, and an operator without TOTP', async () => {
    const plain = await callerHeaders({
      account_id: operator,
      auth: 'session',
      session_id: 's',
      plan: 'free',
    });
    const noTotp = await operatorHeaders(operator, { totp_active: false });
    for (const path of [`/v1/operator/accounts?ids=${people[0]!.account_id}`, '/v1/operator/accounts/log']) {
      expect((await get(path, plain)).body.error_category).toBe('operator_role_required');
      expect((await get(path, noTotp)).body.error_category).toBe('operator_totp_required');
      expect((await get(path, plain)).status).toBe(403);
    }
  });

  it('names accounts by email and nickname, leaving out ids that name no account', async () => {
    const unknown = randomUUID();
    const ids = [people[0]!.account_id, people[1]!.account_id, unknown].join(',');
    const res = await get(`/v1/operator/accounts?ids=${ids}`);
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.data.map((a: { id: string }) => [a.id, a]));
    expect(byId[people[0]!.account_id]).toEqual({
      id: people[0]!.account_id,
      email: emails[0],
      nickname: 'Ada',
    });
    expect(byId[people[1]!.account_id]).toEqual({
      id: people[1]!.account_id,
      email: emails[1],
      nickname: null,
    });
    expect(byId[unknown]).toBeUndefined();
    expect(res.body.meta).toMatchObject({ returned: 2, asked: 3 });
  });

  it('finds the account of an email, whatever its case', async () => {
    const found = await get(`/v1/operator/accounts?email=${encodeURIComponent(emails[1]!.toUpperCase())}`);
    expect(found.body.data).toEqual([{ id: people[1]!.account_id, email: emails[1], nickname: null }]);
    expect((await get('/v1/operator/accounts?email=nobody%40example.com')).body.data).toEqual([]);
    expect((await get(`/v1/operator/accounts?email=x&ids=${people[0]!.account_id}`)).status).toBe(400);
  });

  it('asks for 1 to 100 account ids', async () => {
    const many = Array.from({ length: 101 }, () => randomUUID()).join(',');
    for (const query of ['', '?ids=', '?ids=not-a-uuid', `?ids=${many}`, '?id=x']) {
      const res = await get(`/v1/operator/accounts${query}`);
      expect(res.status).toBe(400);
    }
    const hundred = Array.from({ length: 100 }, () => randomUUID()).join(',');
    expect((await get(`/v1/operator/accounts?ids=${hundred}`)).status).toBe(200);
  });

  it('serves the log of the operator role newest first, filtered by operator, action, target and dates', async () => {
    const all = await get('/v1/operator/accounts/log');
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: { action: string }) => r.action)).toEqual([
      'operator.revoke',
      'operator.grant',
      'operator.grant',
    ]);
    expect(all.body.data[0]).toMatchObject({
      actor: `operator:${people[1]!.account_id}`,
      operator_account_id: people[1]!.account_id,
      target: `account:${people[0]!.account_id}`,
      reason: 'left the desk',
      at: '2026-11-30T12:02:00.000Z',
    });
    const count = async (query: string) => (await get(`/v1/operator/accounts/log?${query}`)).body.data.length;
    expect(await count(`operator=${people[1]!.account_id}`)).toBe(1);
    expect(await count(`operator=${people[0]!.account_id}`)).toBe(1);
    expect(await count('operator=command:bootstrap')).toBe(1);
    expect(await count('action=operator')).toBe(3);
    expect(await count('action=operator.grant')).toBe(2);
    expect(await count('action=operator.gr')).toBe(0);
    expect(await count(`target=${people[0]!.account_id}`)).toBe(2);
    expect(await count('since=2026-11-30T12:01:00Z')).toBe(2);
    expect(await count('since=2026-11-30T12:00:00Z&until=2026-11-30T12:01:00Z')).toBe(1);
  });

  it('pages with a signed cursor bound to its filters', async () => {
    const first = await get('/v1/operator/accounts/log?limit=2&action=operator');
    expect(first.body.data).toHaveLength(2);
    const cursor = first.body.meta.next_cursor as string;
    const second = await get(`/v1/operator/accounts/log?limit=2&action=operator&cursor=${cursor}`);
    expect(second.body.data.map((r: { action: string }) => r.action)).toEqual(['operator.grant']);
    expect(second.body.meta.next_cursor).toBeNull();
    const ids = [...first.body.data, ...second.body.data].map((r: { id: number }) => r.id);
    expect(new Set(ids).size).toBe(3);
    for (const query of [`action=operator.grant&cursor=${cursor}`, `cursor=${cursor.slice(0, -2)}xx`]) {
      const res = await get(`/v1/operator/accounts/log?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('query.cursor');
    }
  });
});
