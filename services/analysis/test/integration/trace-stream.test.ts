import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CompiledQuery } from 'kysely';
import { waitFor } from '@meridian/bus/testing';
import { startPlatform, type Analysis, type Platform } from './platform-harness.js';

/** An open server-sent events answer: its status, what arrived so far, and a way to drop it. */
interface Opened {
  status: number;
  res: IncomingMessage;
  text: () => string;
  drop(): void;
}

describe('the live trace: pushed, stopped when the client leaves, capped', () => {
  let h: Platform;
  let api: Analysis;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    // The first replica executes no run, so that runs stay queued while streams watch them.
    h = await startPlatform('analysis_trace', {
      RUN_WORKER: 'false',
      TRACE_STREAMS_PER_RUN: '4',
      TRACE_STREAMS_PER_ACCOUNT: '10',
    });
    api = h.a;
    server = createServer(api.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await h?.close();
  });

  const open = async (account: string, runId: string, at = base): Promise<Opened> => {
    const headers = { ...(await h.as(account)), accept: 'text/event-stream' };
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${at}/v1/analysis/report/${runId}/trace`, { headers }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('error', () => undefined);
        resolve({ status: res.statusCode ?? 0, res, text: () => text, drop: () => req.destroy() });
      });
      req.on('error', reject);
      req.end();
    });
  };
  const queuedRuns = async (account: string, domain: string, n: number) => {
    await h.grant(account, 100_000_000);
    await h.subscribe(account, 'audit_base');
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const made = await request(api.app)
        .post('/v1/analysis/run')
        .set(await h.as(account))
        .send({ domain, tier: 'audit_base' });
      expect(made.status).toBe(201);
      ids.push(made.body.data.id);
    }
    return ids;
  };
  /** Index scans and sequential scans of the trace table, as Postgres counts them. */
  const traceReads = async () => {
    await api.deps.db.executeQuery(CompiledQuery.raw('select pg_stat_clear_snapshot()'));
    const { rows } = await api.deps.db.executeQuery<{ n: string }>(
      CompiledQuery.raw(
        `select (coalesce(idx_scan, 0) + coalesce(seq_scan, 0))::text as n
           from pg_stat_user_tables where schemaname = 'analysis' and relname = 'trace_events'`,
      ),
    );
    return Number(rows[0]!.n);
  };

  /**
   * The read count once it held still for 11 s (at most 40 s): an idle backend reports the reads it
   * made up to 10 s later (PGSTAT_IDLE_INTERVAL), so only a count that held still longer than that
   * has every read made before it.
   */
  const settledTraceReads = async () => {
    let last = await traceReads();
    for (let still = 0, tries = 0; still < 11 && tries < 40; tries++) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await traceReads();
      still = now === last ? still + 1 : 0;
      last = now;
    }
    return last;
  };

  it('pushes a run executed on another replica to the stream as its events are stored, then ends it', async () => {
    const account = randomUUID();
    await h.verified(account, 'pushed.example');
    h.behaviours.set('pushed.example', { delayMs: 1500 });
    const [runId] = await queuedRuns(account, 'pushed.example', 1);
    const stream = await open(account, runId!);
    expect(stream.status).toBe(200);
    const worker = await h.replica({ RUN_WORKER: 'true' });
    try {
      await waitFor(async () => stream.text().includes('"stage":"dns","status":"started"'), {
        what: 'the first pipeline event pushed',
        timeoutMs: 15_000,
      });
      // Pushed while the pipeline still waits: not at the end of the run.
      expect(stream.text()).not.toContain('event: end');
      await new Promise((r) => stream.res.once('end', r));
      expect(stream.text().trim().split('\n\n').at(-1)).toBe(
        `event: end\ndata: {"run_id":"${runId}","status":"succeeded"}`,
      );
    } finally {
      await worker.close();
    }
  }, 60_000);

  it('stops all work for streams whose clients left, those that left during the lookup included', async () => {
    const wide = await h.replica({
      RUN_WORKER: 'false',
      TRACE_STREAMS_PER_RUN: '500',
      TRACE_STREAMS_PER_ACCOUNT: '500',
    });
    const wideServer = createServer(wide.app);
    await new Promise<void>((r) => wideServer.listen(0, '127.0.0.1', r));
    const at = `http://127.0.0.1:${(wideServer.address() as AddressInfo).port}`;
    try {
      const account = randomUUID();
      await h.verified(account, 'dropped.example');
      const [runId] = await queuedRuns(account, 'dropped.example', 1);
      const streams = await Promise.all(Array.from({ length: 60 }, () => open(account, runId!, at)));
      expect(streams.every((s) => s.status === 200)).toBe(true);
      expect(wide.deps.streams.open()).toBe(60);
      for (const s of streams) s.drop();
      // And 60 clients that leave as soon as their request is sent, while the run is looked up.
      const headers = { ...(await h.as(account)), accept: 'text/event-stream' };
      for (let i = 0; i < 60; i++) {
        const req = httpRequest(`${at}/v1/analysis/report/${runId}/trace`, { headers });
        req.on('error', () => undefined);
        req.end(() => req.destroy());
      }
      await waitFor(async () => wide.deps.streams.open() === 0 && wide.deps.traces.watching() === 0, {
        what: 'every dropped stream released',
        timeoutMs: 10_000,
      });
      // Postgres counts a backend's reads when it next flushes its statistics: the count must first
      // stop moving from the reads made before the drop. A stream still polling moves it within 3 s.
      const before = await settledTraceReads();
      await new Promise((r) => setTimeout(r, 3000));
      expect(wide.deps.streams.open()).toBe(0);
      expect(wide.deps.traces.watching()).toBe(0);
      expect((await traceReads()) - before).toBe(0);
    } finally {
      wideServer.closeAllConnections();
      await new Promise((r) => wideServer.close(r));
      await wide.close();
    }
  }, 90_000);

  it('refuses a stream past 4 of one run or 10 of one account with a 429 and Retry-After, and opens one again after a drop', async () => {
    const account = randomUUID();
    await h.verified(account, 'capped.example');
    const runs = await queuedRuns(account, 'capped.example', 4);
    const held: Opened[] = [];
    for (let i = 0; i < 4; i++) held.push(await open(account, runs[0]!));
    expect(held.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const overRun = await request(api.app)
      .get(`/v1/analysis/report/${runs[0]}/trace`)
      .set({ ...(await h.as(account)), Accept: 'text/event-stream' });
    expect(overRun.status).toBe(429);
    expect(overRun.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(overRun.headers['retry-after']).toBe('5');
    expect(overRun.body).toMatchObject({ status: 429, error_category: 'too_many_streams', retry_after: 5 });
    expect(overRun.body.detail).toContain('this run');
    for (let i = 0; i < 4; i++) held.push(await open(account, runs[1]!));
    for (let i = 0; i < 2; i++) held.push(await open(account, runs[2]!));
    const overAccount = await open(account, runs[3]!);
    expect(overAccount.status).toBe(429);
    overAccount.drop();
    // The JSON trace is no stream: it is still answered.
    const json = await request(api.app)
      .get(`/v1/analysis/report/${runs[3]}/trace`)
      .set(await h.as(account));
    expect(json.status).toBe(200);
    held.pop()!.drop();
    await waitFor(async () => api.deps.streams.open() === 9, { what: 'the dropped stream released' });
    const again = await open(account, runs[3]!);
    expect(again.status).toBe(200);
    again.drop();
    for (const s of held) s.drop();
  }, 60_000);

  it('refuses the live trace of a run not paid for (a deposit quote never paid), which would never end; its JSON trace answers', async () => {
    const account = randomUUID();
    await h.verified(account, 'unpaid.example');
    const quoted = await request(api.app)
      .post('/v1/analysis/run')
      .set(await h.as(account))
      .send({ domain: 'unpaid.example', tier: 'audit_base', payment: 'deposit' });
    expect(quoted.body.data.status).toBe('awaiting_payment');
    const stream = await open(account, quoted.body.data.id);
    stream.drop();
    expect(stream.status).toBe(409);
    const refused = await request(api.app)
      .get(`/v1/analysis/report/${quoted.body.data.id}/trace`)
      .set({ ...(await h.as(account)), Accept: 'text/event-stream' });
    expect(refused.body).toMatchObject({ status: 409, error_category: 'run_not_paid' });
    const json = await request(api.app)
      .get(`/v1/analysis/report/${quoted.body.data.id}/trace`)
      .set(await h.as(account));
    expect(json.status).toBe(200);
    expect(json.body.meta.run_status).toBe('awaiting_payment');
  }, 60_000);
});
