// The analysis platform's workers: retries and refunds of failed runs, the run timeout, work
// shared between two replicas, and the weekly re-scan started once however many replicas look.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runDueRescans } from '../../src/flows/rescan.js';
import { startPlatform, type Platform } from './platform-harness.js';
import { RUN_PRICE, platformCalls } from './support/platform-calls.js';

describe('analysis platform: workers, retries, timeouts, re-scans', () => {
  let h: Platform;
  const { sql, get, post, settled } = platformCalls(() => h);

  beforeAll(async () => {
    h = await startPlatform('analysis_platform_workers', {
      RUN_TIMEOUT_MS: '2500',
      RUN_QUEUED_PER_ACCOUNT: '20',
    });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  describe('runs', () => {
    it('retries a run whose pipeline failed, and fails and refunds it once the attempts are spent', async () => {
      const account = randomUUID();
      await h.grant(account, 20_000_000);
      await h.verified(account, 'flaky.example');
      await h.verified(account, 'broken.example');
      h.behaviours.set('flaky.example', { failTimes: 1 });
      h.behaviours.set('broken.example', { failTimes: 99 });
      const flaky = await post(account, '/v1/analysis/run', { domain: 'flaky.example', tier: 'audit_base' });
      expect(await settled(account, 'flaky.example', flaky.body.data.id)).toMatchObject({
        status: 'succeeded',
        attempts: 2,
      });
      const broken = await post(account, '/v1/analysis/run', {
        domain: 'broken.example',
        tier: 'audit_base',
      });
      const failed = await settled(account, 'broken.example', broken.body.data.id);
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: 3,
        error: 'pipeline_failed',
        refund: 'done',
      });
      expect(await h.balance(account)).toBe(20_000_000 - RUN_PRICE.audit_base);
    });

    it('fails a run whose target answers nothing at once, without a refund (not our failure)', async () => {
      const account = randomUUID();
      await h.grant(account, 20_000_000);
      await h.verified(account, 'dark.example');
      h.behaviours.set('dark.example', { unreachable: true });
      const made = await post(account, '/v1/analysis/run', { domain: 'dark.example', tier: 'audit_base' });
      const run = await settled(account, 'dark.example', made.body.data.id);
      expect(run).toMatchObject({ status: 'failed', attempts: 1, error: 'target_unreachable', refund: null });
      expect(await h.balance(account)).toBe(20_000_000 - RUN_PRICE.audit_base);
      const trace = await get(account, `/v1/analysis/report/${made.body.data.id}/trace`);
      expect(trace.body.data.at(-1)).toMatchObject({ stage: 'run', status: 'failed' });
      expect(trace.body.data.at(-1).message).toContain('no public address');
    });

    it('counts an attempt that outlives RUN_TIMEOUT_MS as failed, so a hung audit ends failed and refunded', async () => {
      const account = randomUUID();
      await h.grant(account, 20_000_000);
      await h.verified(account, 'hung.example');
      h.behaviours.set('hung.example', { delayMs: 6000 });
      const made = await post(account, '/v1/analysis/run', { domain: 'hung.example', tier: 'audit_base' });
      const run = await settled(account, 'hung.example', made.body.data.id);
      expect(run).toMatchObject({ status: 'failed', attempts: 3, error: 'pipeline_failed', refund: 'done' });
      expect(await h.balance(account)).toBe(20_000_000);
      const trace = await get(account, `/v1/analysis/report/${made.body.data.id}/trace`);
      expect(
        trace.body.data.filter((e: { message: string }) => e.message.includes('timed out')),
      ).toHaveLength(3);
    }, 60_000);

    it('shares the work between two workers', async () => {
      const account = randomUUID();
      await h.grant(account, 200_000_000);
      await h.verified(account, 'shared.example');
      h.behaviours.set('shared.example', { delayMs: 400 });
      const b = await h.replica();
      try {
        const ids: string[] = [];
        for (let i = 0; i < 8; i++)
          ids.push(
            (await post(account, '/v1/analysis/run', { domain: 'shared.example', tier: 'audit_base' })).body
              .data.id,
          );
        for (const id of ids) await settled(account, 'shared.example', id);
        const { rows } = await sql.query('select distinct worker from analysis.runs where id = any($1)', [
          ids,
        ]);
        // Each replica names itself (host/pid/random): both took jobs.
        expect(rows).toHaveLength(2);
      } finally {
        await b.close();
      }
    });
  });

  describe('weekly re-scan', () => {
    it('starts one run per week however many replicas look, and the report shows what changed', async () => {
      const account = randomUUID();
      await h.grant(account, 100_000_000);
      await h.verified(account, 'weekly.example');
      const finding = (id: string) => ({
        id,
        category: 'headers' as const,
        title: id,
        severity: 'medium' as const,
        outcome: 'problem' as const,
        passed: false,
        evidence: 'e',
        remediation: 'r',
        score_modifier: -5,
      });
      h.behaviours.set('weekly.example', {
        findings: [finding('headers.hsts.missing'), finding('headers.csp.missing')],
      });
      const first = await post(account, '/v1/analysis/run', { domain: 'weekly.example', tier: 'audit_base' });
      await settled(account, 'weekly.example', first.body.data.id);

      const on = await post(account, '/v1/analysis/auto-rescan', { domain: 'weekly.example' });
      expect(on.status).toBe(200);
      expect(on.body.data).toMatchObject({ enabled: true, tier: 'audit_base', interval: 'week' });
      const due = Date.parse(on.body.data.next_run_at);
      expect(due - Date.now()).toBeGreaterThan(6.9 * 86_400_000);

      h.behaviours.set('weekly.example', {
        findings: [finding('headers.csp.missing'), finding('cookies.secure.missing')],
      });
      const b = await h.replica({ RUN_WORKER: 'false' });
      try {
        const later = new Date(due + 60_000);
        const started = await Promise.all([
          runDueRescans(h.a.deps, later),
          runDueRescans(b.deps, later),
          runDueRescans(h.a.deps, later),
          runDueRescans(b.deps, later),
        ]);
        expect(started.reduce((x, y) => x + y, 0)).toBe(1);
        expect(await runDueRescans(b.deps, new Date(due + 3 * 86_400_000))).toBe(0);
        const { rows } = await sql.query(
          "select id from analysis.runs where domain = 'weekly.example' and origin = 'rescan'",
        );
        expect(rows).toHaveLength(1);
        const rescan = await settled(account, 'weekly.example', rows[0]!.id);
        expect(rescan).toMatchObject({
          status: 'succeeded',
          origin: 'rescan',
          payment: 'credit',
          amount_atomic: RUN_PRICE.audit_base,
        });
        const report = (await sql.query('select report from analysis.runs where id = $1', [rows[0]!.id]))
          .rows[0]!.report;
        expect(report.changes).toEqual({
          previous_run_id: first.body.data.id,
          new: ['cookies.secure.missing'],
          resolved: ['headers.hsts.missing'],
        });
        // The next week is due a week later; turned off, nothing more starts.
        expect(await runDueRescans(b.deps, new Date(due + 7 * 86_400_000 + 60_000))).toBe(1);
        expect(
          (await post(account, '/v1/analysis/auto-rescan', { domain: 'weekly.example' })).body.data.enabled,
        ).toBe(false);
        expect(await runDueRescans(b.deps, new Date(due + 14 * 86_400_000 + 60_000))).toBe(0);
      } finally {
        await b.close();
      }
    });
  });
});
