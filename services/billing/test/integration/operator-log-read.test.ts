import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { operatorHeaders } from '@meridian/http-kit/testing';
import { insertEntry } from '../../src/db/repositories/ledger.js';
import { insertOperatorAction } from '../../src/db/repositories/operator-actions.js';
import { startBilling, type Billing } from './harness.js';

interface Grant {
  id: number;
  account_id: string;
  kind: string;
  amount_atomic: number;
  reason: string;
  operator_account_id: string | null;
}

/** What the operator console reads of billing: its operator log, and the operators' grants. */
describe('operator log and grants of billing', () => {
  let billing: Billing;
  const [ada, bob] = [randomUUID(), randomUUID()];
  const [alice, carol] = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    billing = await startBilling('billing_operator_log');
    // Seeded as the operator flows write them, so that this test reads what they leave whatever
    // rules a grant must pass; the flows' own tests hold those rules.
    const post = async (operator: string, kind: 'grant' | 'revoke', account_id: string, amount: number) => {
      const at = new Date(Date.UTC(2026, 10, 30, 12, ++minute));
      await insertEntry(billing.deps.db, {
        account_id,
        created_at: at,
        delta_atomic: kind === 'grant' ? amount : -amount,
        reason: kind === 'grant' ? 'admin_grant' : 'admin_revoke',
        ref: `${kind} for a test`,
        actor: `operator:${operator}`,
        idempotency_key: `operator:${randomUUID()}`,
        order_id: null,
        tx_signature: null,
        corrects_id: null,
      });
      await insertOperatorAction(billing.deps.db, {
        at,
        actor: `operator:${operator}`,
        action: `credit.${kind}`,
        target: `account:${account_id}`,
        reason: `${amount}: ${kind} for a test`,
      });
    };
    let minute = 0;
    await post(ada, 'grant', alice, 5_000_000);
    await post(ada, 'grant', carol, 2_500_000);
    await post(bob, 'revoke', alice, 1_000_000);
    await post(bob, 'grant', carol, 10_000);
    // Not a grant: a top-up is in the ledger, never among the grants.
    await insertEntry(billing.deps.db, {
      account_id: alice,
      created_at: new Date(),
      delta_atomic: 7,
      reason: 'topup_usdc',
      ref: 'sig',
      actor: 'deposit-watcher',
      idempotency_key: 'deposit:sig',
      order_id: null,
      tx_signature: 'sig',
      corrects_id: null,
    });
  });
  afterAll(async () => billing?.close());

  const get = async (path: string, headers?: Record<string, string>) =>
    request(billing.app)
      .get(path)
      .set(headers ?? (await operatorHeaders(ada)));
  const grants = async (query = '') =>
    (await get(`/v1/operator/billing/grants?${query}`)).body.data as Grant[];

  it('refuses a session without the operator role, and an operator without TOTP', async () => {
    const plain = await billing.as(ada);
    const noTotp = await operatorHeaders(ada, { totp_active: false });
    for (const path of ['/v1/operator/billing/log', '/v1/operator/billing/grants']) {
      const refused = await get(path, plain);
      expect(refused.status).toBe(403);
      expect(refused.body.error_category).toBe('operator_role_required');
      expect((await get(path, noTotp)).body.error_category).toBe('operator_totp_required');
    }
  });

  it('lists grants and revocations newest first, with account, amount, reason and operator', async () => {
    const all = await grants();
    expect(all.map((g) => [g.kind, g.account_id, g.amount_atomic, g.operator_account_id])).toEqual([
      ['grant', carol, 10_000, bob],
      ['revoke', alice, 1_000_000, bob],
      ['grant', carol, 2_500_000, ada],
      ['grant', alice, 5_000_000, ada],
    ]);
    expect(all[1]).toMatchObject({ reason: 'revoke for a test', actor: `operator:${bob}` });
  });

  it('filters grants by account, operator and dates', async () => {
    expect((await grants(`account=${alice}`)).map((g) => g.kind)).toEqual(['revoke', 'grant']);
    expect((await grants(`operator=${ada}`)).map((g) => g.account_id)).toEqual([carol, alice]);
    expect(await grants(`account=${alice}&operator=${bob}`)).toHaveLength(1);
    expect(await grants('since=2999-01-01T00:00:00Z')).toEqual([]);
    expect(await grants('until=2000-01-01T00:00:00Z')).toEqual([]);
    const between = await grants('since=2026-11-30T12:02:00Z&until=2026-11-30T12:04:00Z');
    expect(between.map((g) => g.kind)).toEqual(['revoke', 'grant']);
    expect((await get('/v1/operator/billing/grants?account=nope')).status).toBe(400);
  });

  it('pages grants with a signed cursor bound to its filters', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(
        `/v1/operator/billing/grants?limit=1&operator=${ada}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...(res.body.data as Grant[]).map((g) => g.id));
      cursor = res.body.meta.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual((await grants(`operator=${ada}`)).map((g) => g.id));
    const first = await get('/v1/operator/billing/grants?limit=1');
    const next = first.body.meta.next_cursor as string;
    for (const query of [`account=${alice}&cursor=${next}`, `cursor=x${next}`]) {
      const res = await get(`/v1/operator/billing/grants?limit=1&${query}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('query.cursor');
    }
  });

  it('serves its operator log newest first, filtered by operator, action and target', async () => {
    const log = await get('/v1/operator/billing/log');
    expect(log.status).toBe(200);
    expect(log.body.data.map((r: { action: string }) => r.action)).toEqual([
      'credit.grant',
      'credit.revoke',
      'credit.grant',
      'credit.grant',
    ]);
    const count = async (query: string) => (await get(`/v1/operator/billing/log?${query}`)).body.data.length;
    expect(await count(`operator=${bob}`)).toBe(2);
    expect(await count('action=credit.revoke')).toBe(1);
    expect(await count(`target=${carol}`)).toBe(2);
    expect(await count(`target=account:${alice}&action=credit`)).toBe(2);
    expect(await count('until=2000-01-01T00:00:00Z')).toBe(0);
    const page = await get(`/v1/operator/billing/log?limit=3`);
    const rest = await get(`/v1/operator/billing/log?limit=3&cursor=${page.body.meta.next_cursor}`);
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.meta.next_cursor).toBeNull();
    const replayed = await get(
      `/v1/operator/billing/log?limit=3&operator=${bob}&cursor=${page.body.meta.next_cursor}`,
    );
    expect(replayed.status).toBe(400);
  });
});
