import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CompiledQuery } from 'kysely';
import { waitFor } from '@meridian/bus/testing';
import { startPlatform, type Platform } from './platform-harness.js';

describe('the run queue: fair between accounts, capped per account, each run bounded in time', () => {
  let h: Platform;

  beforeAll(async () => {
    // The first replica takes requests only: each test starts its worker when the queue is full.
    h = await startPlatform('analysis_queue', { RUN_WORKER: 'false' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const query = async (text: string, params: unknown[] = []) =>
    (await h.a.deps.db.executeQuery(CompiledQuery.raw(text, params))).rows as Array<Record<string, any>>;
  const runRow = async (id: string) => (await query('select * from analysis.runs where id = $1', [id]))[0]!;
  const commission = (account: string, domain: string) =>
    h
      .as(account)
      .then((headers) =>
        request(h.a.app).post('/v1/analysis/run').set(headers).send({ domain, tier: 'audit_base' }),
      );
  const settled = async (id: string, timeoutMs = 30_000) => {
    await waitFor(async () => ['succeeded', 'failed'].includes((await runRow(id)).status), {
      what: `run ${id} settled`,
      timeoutMs,
    });
    return runRow(id);
  };

  it('takes a second account’s run after one slot of a first account’s five runs on a stalling site, and refuses its sixth', async () => {
    const greedy = randomUUID();
    const polite = randomUUID();
    await h.grant(greedy, 100_000_000);
    await h.subscribe(greedy, 'audit_base');
    await h.grant(polite, 20_000_000);
    await h.verified(greedy, 'stalling.example');
    await h.verified(polite, 'polite.example');
    h.behaviours.set('stalling.example', { delayMs: 1500 });
    const greedyRuns: string[] = [];
    for (let i = 0; i < 5; i++) {
      const made = await commission(greedy, 'stalling.example');
      expect(made.status).toBe(201);
      greedyRuns.push(made.body.data.id);
    }
    const sixth = await commission(greedy, 'stalling.example');
    expect(sixth.status).toBe(429);
    expect(sixth.headers['retry-after']).toBe('5');
    expect(sixth.body).toMatchObject({ error_category: 'too_many_runs', retry_after: 5 });
    const politeRun = (await commission(polite, 'polite.example')).body.data.id as string;

    const worker = await h.replica({ RUN_WORKER: 'true' });
    try {
      const politeDone = await settled(politeRun);
      expect(politeDone.status).toBe('succeeded');
      const startedBefore = (
        await query('select count(*)::int as n from analysis.runs where id = any($1) and started_at < $2', [
          greedyRuns,
          politeDone.started_at,
        ])
      )[0]!.n;
      // One slot: the greedy account's first run, then the polite one, whose jobs were queued last.
      expect(startedBefore).toBe(1);
      for (const id of greedyRuns) expect((await settled(id)).status).toBe('succeeded');
      // Finished runs free the account's places: it may commission again.
      expect((await commission(greedy, 'stalling.example')).status).toBe(201);
    } finally {
      await worker.close();
    }
  }, 90_000);

  it('fails and refunds a run once RUN_DEADLINE_MS has passed since its first start, retries included', async () => {
    const account = randomUUID();
    await h.grant(account, 20_000_000);
    await h.verified(account, 'endless.example');
    h.behaviours.set('endless.example', { delayMs: 6000 });
    const id = (await commission(account, 'endless.example')).body.data.id as string;
    const worker = await h.replica({ RUN_WORKER: 'true', RUN_DEADLINE_MS: '2000', RUN_MAX_ATTEMPTS: '3' });
    try {
      const run = await settled(id, 20_000);
      expect(run).toMatchObject({ status: 'failed', error: 'run_timed_out', attempts: 1 });
      expect(run.finished_at.getTime() - run.started_at.getTime()).toBeLessThan(6000);
      await waitFor(async () => (await runRow(id)).refund === 'done', { what: 'the refund' });
      expect(await h.balance(account)).toBe(20_000_000);
    } finally {
      await worker.close();
    }
  }, 60_000);
});
