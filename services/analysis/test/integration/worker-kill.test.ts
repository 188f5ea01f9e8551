import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CompiledQuery } from 'kysely';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
import { startServiceProcess, type ServiceProcess } from '@meridian/test-peers';
import { runPipeline } from '../../src/flows/run-pipeline.js';
import { sweepRuns } from '../../src/jobs/run-sweeper.js';
import { startPlatform, type Platform } from './platform-harness.js';

const PRICE = 9_000_000;

describe('a worker killed mid-run', () => {
  let h: Platform;
  const children: ServiceProcess[] = [];

  beforeAll(async () => {
    // The first replica takes requests only: the workers are started by the tests.
    h = await startPlatform('analysis_kill', { RUN_WORKER: 'false' });
  }, 120_000);
  afterAll(async () => {
    for (const child of children) await child.kill();
    await h?.close();
  });

  const query = async (text: string, params: unknown[] = []) =>
    (await h.a.deps.db.executeQuery(CompiledQuery.raw(text, params))).rows as Array<Record<string, any>>;
  const runRow = async (id: string) => (await query('select * from analysis.runs where id = $1', [id]))[0]!;
  const commission = async (account: string, domain: string) => {
    const res = await request(h.a.app)
      .post('/v1/analysis/run')
      .set(await h.as(account))
      .send({ domain, tier: 'audit_base' });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  /** A worker process with a slow pipeline; resolves once it is in the middle of `runId`. */
  const workerMidRun = async (runId: string) => {
    const child = await startServiceProcess('services/analysis/test/integration/worker-process.ts', {
      ...h.env,
      RUN_WORKER: 'true',
      TEST_PIPELINE_MS: '120000',
    });
    children.push(child);
    await waitFor(
      async () =>
        (await query("select 1 from analysis.trace_events where run_id = $1 and stage = 'scan'", [runId]))
          .length > 0,
      { what: 'the worker process in the middle of the run', timeoutMs: 30_000 },
    );
    expect((await runRow(runId)).status).toBe('running');
    return child;
  };
  const settled = async (id: string) => {
    await waitFor(async () => ['succeeded', 'failed'].includes((await runRow(id)).status), {
      what: `run ${id} settled`,
      timeoutMs: 30_000,
    });
    return runRow(id);
  };

  it('is taken over by another worker once its lease runs out, and finishes on the second attempt', async () => {
    const account = randomUUID();
    await h.grant(account, 50_000_000);
    await h.verified(account, 'killed.example');
    const id = await commission(account, 'killed.example');
    const child = await workerMidRun(id);
    const victim = (await runRow(id)).worker;
    await child.kill();

    const survivor = await h.replica({ RUN_WORKER: 'true' });
    try {
      const run = await settled(id);
      expect(run).toMatchObject({ status: 'succeeded', attempts: 2, refund: null });
      expect(run.worker).not.toBe(victim);
      const trace = await query(
        'select stage, status, message from analysis.trace_events where run_id = $1 order by seq',
        [id],
      );
      expect(trace.filter((e) => e.stage === 'run' && e.status === 'started').map((e) => e.message)).toEqual([
        'attempt 1 of 3',
        'attempt 2 of 3',
      ]);
      expect(await h.balance(account)).toBe(50_000_000 - PRICE);
    } finally {
      await survivor.close();
    }
  }, 90_000);

  it('is failed and refunded when its attempts are spent, never left running', async () => {
    const account = randomUUID();
    await h.grant(account, 50_000_000);
    await h.verified(account, 'twice-killed.example');
    const id = await commission(account, 'twice-killed.example');
    const child = await workerMidRun(id);
    await child.kill();
    const strict = await h.replica({ RUN_WORKER: 'true', RUN_MAX_ATTEMPTS: '1' });
    try {
      await settled(id);
      // The refund follows the failure (billing is asked after the row says failed).
      await waitFor(async () => (await runRow(id)).refund === 'done', { what: 'the refund' });
      expect(await runRow(id)).toMatchObject({
        status: 'failed',
        error: 'attempts_exhausted',
        attempts: 2,
        lease_until: null,
      });
      expect(await h.balance(account)).toBe(50_000_000);
    } finally {
      await strict.close();
    }
  }, 90_000);

  it('is failed and refunded by the sweeper when its job was lost altogether', async () => {
    const account = randomUUID();
    await h.grant(account, 50_000_000);
    await h.verified(account, 'lost.example');
    const id = await commission(account, 'lost.example');
    await query(
      "update analysis.runs set status = 'running', attempts = 1, lease_until = now() - interval '1 hour' where id = $1",
      [id],
    );
    await sweepRuns(h.a.deps);
    expect(await runRow(id)).toMatchObject({ status: 'failed', error: 'worker_lost', refund: 'done' });
    expect(await h.balance(account)).toBe(50_000_000);
  });

  it('runs the real pipeline on a worker: a domain with no address fails at once, unrefunded', async () => {
    const account = randomUUID();
    await h.grant(account, 50_000_000);
    await h.verified(account, 'no-address.example');
    const id = await commission(account, 'no-address.example');
    const real = await h.replica({ RUN_WORKER: 'true', SCANNER_TIMEOUT_MS: '2000' }, runPipeline);
    try {
      expect(await settled(id)).toMatchObject({
        status: 'failed',
        error: 'target_unreachable',
        attempts: 1,
        refund: null,
      });
      const trace = await query(
        'select stage, status from analysis.trace_events where run_id = $1 order by seq',
        [id],
      );
      expect(trace.map((e) => `${e.stage}:${e.status}`)).toEqual(
        expect.arrayContaining(['run:started', 'dns:started', 'run:failed']),
      );
      expect(await h.balance(account)).toBe(50_000_000 - PRICE);
    } finally {
      await real.close();
    }
  }, 60_000);
});
