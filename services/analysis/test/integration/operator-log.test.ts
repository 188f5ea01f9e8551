import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { insertOperatorAction } from '@meridian/db';
import { operatorHeaders } from '@meridian/http-kit/testing';
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
});
