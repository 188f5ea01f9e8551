import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CompiledQuery } from 'kysely';
import { startPlatform, type Platform } from './platform-harness.js';

describe('the caps on what an account holds: runs asked at once, unpaid deposit quotes', () => {
  let h: Platform;

  beforeAll(async () => {
    // No worker: every run commissioned stays queued, so the cap is what the test reads.
    h = await startPlatform('analysis_caps', { RUN_WORKER: 'false' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const query = async (text: string, params: unknown[] = []) =>
    (await h.a.deps.db.executeQuery(CompiledQuery.raw(text, params))).rows as Array<Record<string, any>>;
  const commission = async (account: string, domain: string, payment?: 'credit' | 'deposit') =>
    request(h.a.app)
      .post('/v1/analysis/run')
      .set(await h.as(account))
      .send({ domain, tier: 'audit_base', ...(payment ? { payment } : {}) });
  const statuses = (answers: Array<{ status: number }>) => answers.map((a) => a.status).sort();

  it('lets exactly five of twelve covered runs asked at once through, and refuses the other seven', async () => {
    const account = randomUUID();
    await h.grant(account, 100_000_000);
    await h.subscribe(account, 'audit_base');
    await h.verified(account, 'covered-burst.example');
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => commission(account, 'covered-burst.example')),
    );
    expect(statuses(answers)).toEqual([...Array(5).fill(201), ...Array(7).fill(429)]);
    const held = await query(
      "select count(*)::int as n from analysis.runs where account_id = $1 and status = 'queued'",
      [account],
    );
    expect(held[0]!.n).toBe(5);
  }, 60_000);

  it('lets exactly five of twelve runs paid from credit at once through, and charges only those', async () => {
    const account = randomUUID();
    await h.grant(account, 200_000_000);
    await h.verified(account, 'credit-burst.example');
    const before = await h.balance(account);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => commission(account, 'credit-burst.example', 'credit')),
    );
    expect(statuses(answers)).toEqual([...Array(5).fill(201), ...Array(7).fill(429)]);
    const paid = answers.filter((a) => a.status === 201).map((a) => a.body.data.amount_atomic as number);
    expect(before - (await h.balance(account))).toBe(paid.reduce((s, n) => s + n, 0));
  }, 60_000);

  it('holds at most three unpaid deposit quotes; a lapsed or a paid one no longer counts', async () => {
    const account = randomUUID();
    await h.verified(account, 'quotes.example');
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => commission(account, 'quotes.example', 'deposit')),
    );
    expect(statuses(answers)).toEqual([...Array(3).fill(201), ...Array(5).fill(409)]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.body).toMatchObject({ error_category: 'quote_limit' });
    const quoted = answers.filter((a) => a.status === 201).map((a) => a.body.data);
    expect(quoted[0]).toMatchObject({ status: 'awaiting_payment', pay: { memo: quoted[0].id } });
    const rows = await query('select id from analysis.runs where account_id = $1', [account]);
    expect(rows).toHaveLength(3);

    await query("update analysis.runs set created_at = now() - interval '25 hours' where id = $1", [
      quoted[0].id,
    ]);
    expect((await commission(account, 'quotes.example', 'deposit')).status).toBe(201);
    await query("update analysis.runs set status = 'queued' where id = $1", [quoted[1].id]);
    expect((await commission(account, 'quotes.example', 'deposit')).status).toBe(201);
    expect((await commission(account, 'quotes.example', 'deposit')).status).toBe(409);
  }, 60_000);
});
