import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import request from 'supertest';
import { insertOperatorAction } from '@meridian/db';
import { operatorHeaders } from '@meridian/http-kit/testing';
import { main } from '../../scripts/admin.js';
import { startAnalysis, type Analysis } from './harness.js';

/** GET /v1/operator/reviews/log: the analysis service's operator log (reviews recorded). */
describe('operator log of the analysis service', () => {
  let h: Analysis;
  const operator = randomUUID();
  const runs = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    h = await startAnalysis('analysis_operator_log');
    for (const [i, run] of runs.entries())
      await insertOperatorAction(h.deps.db, {
        at: new Date(Date.UTC(2026, 10, 30, 10, i)),
        actor: `operator:${operator}`,
        action: 'review.record',
        target: `run:${run}`,
        reason: `review ${i}`,
      });
  });
  afterAll(async () => h?.close());

  const get = async (query: string, headers?: Record<string, string>) =>
    request(h.app)
      .get(`/v1/operator/reviews/log?${query}`)
      .set(headers ?? (await operatorHeaders(operator)));

  it('refuses a session without the operator role', async () => {
    const refused = await get('', await h.as(operator));
    expect(refused.status).toBe(403);
    expect(refused.body.error_category).toBe('operator_role_required');
  });

  it('answers the reviews logged newest first, by run, paged', async () => {
    const all = await get('');
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: { target: string }) => r.target)).toEqual([
      `run:${runs[1]}`,
      `run:${runs[0]}`,
    ]);
    expect((await get(`target=${runs[0]}`)).body.data).toHaveLength(1);
    const first = await get('limit=1');
    const second = await get(`limit=1&cursor=${first.body.meta.next_cursor}`);
    expect(second.body.data[0].reason).toBe('review 0');
    expect(second.body.meta.next_cursor).toBeNull();
  });

  const admin = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, {
      env: { DATABASE_URL: h.databaseUrl },
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
    });
    return { code, out: out.join(''), err: err.join('') };
  };

  it('checks its hash chain from the command line, and names a row rewritten behind its back', async () => {
    expect(await admin('log-verify')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^the operator log holds: 2 rows, head [0-9a-f]{64}\n$/),
    });
    expect(await admin('log-verfy')).toMatchObject({
      code: 2,
      err: 'analysis:admin: the command is log-verify\n',
    });
    const [first] = await h.deps.db.selectFrom('operator_actions').select('id').orderBy('id').execute();
    await sql`alter table analysis.operator_actions disable trigger operator_actions_append_only`.execute(
      h.deps.db,
    );
    await sql`update analysis.operator_actions set reason = 'nothing happened' where id = ${first!.id}`.execute(
      h.deps.db,
    );
    expect(await admin('log-verify')).toMatchObject({
      code: 2,
      err: `analysis:admin: the operator log is broken at row ${first!.id}: its fields do not match its hash\n`,
    });
  });
});
