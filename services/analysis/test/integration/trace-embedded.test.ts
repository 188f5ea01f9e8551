import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CompiledQuery } from 'kysely';
import { waitFor } from '@meridian/bus/testing';
import { TEST_INTERNAL_AUTH_SECRET, callerHeaders } from '@meridian/http-kit/testing';
import { parseConfig } from '../../src/config.js';
import { commissionedRun, insertRun } from '../../src/db/repositories/runs.js';
import type { AnalysisDeps } from '../../src/deps.js';
import { enqueueRun } from '../../src/flows/events.js';
import type { RunPipeline } from '../../src/flows/run-pipeline.js';
import { analysisParts, start } from '../../src/main.js';

/**
 * The all-in-one's way: the embedded database (PGlite, no LISTEN across processes) and the
 * in-process bus. The worker's writes wake this process's streams directly.
 */
describe('the live trace on the embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'analysis-trace-'));
  let deps: AnalysisDeps;
  let close: () => Promise<void>;
  let server: Server;
  let base: string;
  /** The stand-in pipeline writes one event, then waits until the test lets it finish. */
  let release: () => void = () => {};
  const pipeline: RunPipeline = async (_deps, input, trace) => {
    await trace('dns', 'started', `resolving ${input.domain}`);
    await new Promise<void>((r) => (release = r));
    return {
      run_id: input.run_id,
      domain: input.domain,
      tier: input.tier,
      status: 'succeeded',
      started_at: null,
      finished_at: null,
      score: 90,
      grade: 'A-',
      summary: 'stand-in',
      findings: [],
      changes: null,
      review: null,
    };
  };

  beforeAll(async () => {
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dir,
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
      CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      RUN_SWEEP_MS: '3600000',
      RESCAN_POLL_MS: '3600000',
    };
    const parts = analysisParts(parseConfig(env), { pipeline });
    const service = await start(env, undefined, parts);
    deps = { ...(service.deps as unknown as AnalysisDeps), ...parts };
    close = () => service.close();
    server = createServer(service.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pushes the worker’s events to a stream of the same process and ends it with the run', async () => {
    expect(deps.traces.shared).toBe(false);
    const account = randomUUID();
    const headers = await callerHeaders({
      account_id: account,
      auth: 'session',
      session_id: randomUUID(),
      plan: 'free',
    });
    const added = await fetch(`${base}/v1/analysis/domains`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'embedded.example' }),
    }).then((r) => r.json() as Promise<{ data: { id?: string } }>);
    expect(added.data).toBeDefined();
    const domainId = (
      await deps.db.executeQuery<{ id: string }>(
        CompiledQuery.raw(
          "update analysis.domains set verified_at = now() where hostname = 'embedded.example' returning id",
        ),
      )
    ).rows[0]!.id;
    const runId = `run-${randomUUID()}`;
    const now = new Date();
    // A run queued as a covered commission queues it, without billing (not part of this process).
    await deps.db.transaction().execute(async (trx) => {
      await insertRun(
        trx,
        commissionedRun({
          id: runId,
          account_id: account,
          domain_id: domainId,
          domain: 'embedded.example',
          tier: 'audit_base',
          status: 'queued',
          payment: 'subscription',
          origin: 'request',
          created_at: now,
          queued_at: now,
        }),
      );
      await enqueueRun(trx, runId, 1);
    });
    let text = '';
    const ended = new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        `${base}/v1/analysis/report/${runId}/trace`,
        { headers: { ...headers, accept: 'text/event-stream' } },
        (res) => {
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end();
    });
    await waitFor(async () => text.includes('"stage":"dns","status":"started"'), {
      what: 'the pipeline event pushed',
      timeoutMs: 15_000,
    });
    expect(deps.traces.watching()).toBe(1);
    release();
    await ended;
    expect(text.trim().split('\n\n').at(-1)).toBe(
      `event: end\ndata: {"run_id":"${runId}","status":"succeeded"}`,
    );
    expect(deps.traces.watching()).toBe(0);
    expect(deps.streams.open()).toBe(0);
  }, 30_000);
});
