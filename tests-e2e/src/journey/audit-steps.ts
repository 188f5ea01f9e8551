import { expect } from '@jest/globals';
import { z } from 'zod';
import { reportSchema, shareLinkSchema, traceEventSchema, type TraceEvent } from '@meridian/contracts';
import { rememberSecret } from '@meridian/observability/testing';
import { DOMAIN, enveloped, problemOf, read, type Journey } from './journey.js';

/** The journey's audit: a domain verified by DNS, a run followed live, its report read and shared. */

/** A trace's server-sent events, until its `end` event (or a minute), and that end. */
async function readTrace(
  stream: Response,
): Promise<{ events: TraceEvent[]; end?: { run_id: string; status: string } }> {
  const events: TraceEvent[] = [];
  let end: { run_id: string; status: string } | undefined;
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const deadline = Date.now() + 60_000;
  while (!end && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (event === 'trace') events.push(traceEventSchema.parse(JSON.parse(data!)));
      if (event === 'end') end = JSON.parse(data!) as typeof end;
    }
  }
  await reader.cancel();
  return { events, end };
}

/** Adds the domain and verifies it by its DNS TXT record. */
export async function verifyDomainByTxt(j: Journey): Promise<void> {
  const added = await j.post('/v1/analysis/domains', { domain: DOMAIN });
  expect(added.status).toBe(201);
  const domain = (
    (await added.json()) as {
      data: {
        domain: string;
        status: string;
        verified: boolean;
        verification: { type: string; name: string; value: string };
      };
    }
  ).data;
  expect(domain).toMatchObject({
    domain: DOMAIN,
    status: 'pending',
    verified: false,
    verification: {
      type: 'TXT',
      name: `_meridian-verify.${DOMAIN}`,
      value: expect.stringMatching(/^meridian-verify=/),
    },
  });
  const early = await j.get(`/v1/analysis/verify?domain=${DOMAIN}`);
  expect(early.status).toBe(200);
  expect(await early.json()).toMatchObject({ data: { found: false, verified: false, status: 'pending' } });

  j.dns.zone.TXT.set(domain.verification.name, [domain.verification.value]);
  const verified = await j.get(`/v1/analysis/verify?domain=${DOMAIN}`);
  expect(verified.status).toBe(200);
  expect(await verified.json()).toMatchObject({
    data: {
      domain: DOMAIN,
      found: true,
      verified: true,
      status: 'verified',
      verified_at: expect.any(String),
    },
  });
}

/** Runs an audit of the local site covered by the subscription, following its live trace; a retry makes no second run. */
export async function runCoveredAudit(j: Journey): Promise<void> {
  const entitlement = (await (await j.get('/v1/analysis/entitlement')).json()) as {
    data: { tiers: { tier: string; covered_by_subscription: boolean; charge_atomic: number | null }[] };
  };
  expect(entitlement.data.tiers.find((t) => t.tier === 'audit_base')).toMatchObject({
    covered_by_subscription: true,
    charge_atomic: 0,
  });
  const run = await j.post(
    '/v1/analysis/run',
    { domain: DOMAIN, tier: 'audit_base' },
    {
      ...j.bearer(),
      'idempotency-key': `journey-${j.accountId}`,
    },
  );
  expect(run.status).toBe(201);
  const view = (
    (await run.json()) as {
      data: {
        id: string;
        status: string;
        payment: string;
        amount_atomic: number;
        links: { trace: string };
      };
    }
  ).data;
  expect(view).toMatchObject({
    domain: DOMAIN,
    tier: 'audit_base',
    status: 'queued',
    payment: 'subscription',
    amount_atomic: 0,
  });
  j.runId = view.id;

  // The live trace, as server-sent events, from the start of the run to its end.
  const stream = await j.get(`/v1/analysis/report/${j.runId}/trace`, {
    ...j.bearer(),
    accept: 'text/event-stream',
  });
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const { events, end } = await readTrace(stream);
  expect(end).toEqual({ run_id: j.runId, status: 'succeeded' });
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(events[0]).toMatchObject({ stage: 'run', status: 'started', message: 'attempt 1 of 3' });
  expect(events.at(-1)).toMatchObject({ stage: 'run', status: 'finished' });
  const stages = new Set(events.map((e) => e.stage));
  for (const stage of ['dns', 'http', 'headers', 'content']) expect(stages).toContain(stage);

  // The same trace as JSON, once the run has finished.
  const json = await j.get(`/v1/analysis/report/${j.runId}/trace`);
  expect(json.status).toBe(200);
  const trace = (await json.json()) as { data: unknown[]; meta: { run_status: string } };
  expect(trace.meta.run_status).toBe('succeeded');
  expect(z.array(traceEventSchema).parse(trace.data)).toEqual(events);

  // The same request again (a client retrying) answers the same run, and makes no second one.
  const replayed = await j.post(
    '/v1/analysis/run',
    { domain: DOMAIN, tier: 'audit_base' },
    { ...j.bearer(), 'idempotency-key': `journey-${j.accountId}` },
  );
  expect(replayed.status).toBe(200);
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(await replayed.json()).toMatchObject({ data: { id: j.runId, status: 'succeeded' } });
}

/** Lists the report, reads it and its PDF; nobody else reads it. */
export async function readReportAndPdf(j: Journey): Promise<void> {
  const listed = (await (await j.get(`/v1/analysis/reports?domain=${DOMAIN}`)).json()) as {
    data: { id: string; status: string; grade: string }[];
  };
  expect(listed.data).toEqual([
    expect.objectContaining({ id: j.runId, status: 'succeeded', grade: expect.any(String) }),
  ]);

  const res = await j.get(`/v1/analysis/report/${j.runId}`);
  expect(res.status).toBe(200);
  const report = (await read(res, enveloped(reportSchema))).data;
  expect(report).toMatchObject({ run_id: j.runId, domain: DOMAIN, tier: 'audit_base', status: 'succeeded' });
  expect(report.grade).toBe(listed.data[0]!.grade);
  expect(report.score).toEqual(expect.any(Number));
  const ids = report.findings.map((f) => f.id);
  // The local site sends no CSP, answers no https, and does send X-Content-Type-Options.
  expect(ids).toEqual(
    expect.arrayContaining(['headers.csp.missing', 'headers.xcto.ok', 'content.title.present']),
  );
  expect(report.findings.find((f) => f.id === 'headers.csp.missing')).toMatchObject({ passed: false });

  const pdf = await j.get(`/v1/analysis/report/${j.runId}/pdf`);
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  expect(pdf.headers.get('content-disposition')).toMatch(/^attachment/);
  expect(pdf.headers.get('cache-control')).toBe('private, no-store');
  const bytes = Buffer.from(await pdf.arrayBuffer());
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(bytes.length).toBeGreaterThan(1000);
  // Nobody else reads it: not signed out, not by the key.
  expect((await j.get(`/v1/analysis/report/${j.runId}`, {})).status).toBe(401);
}

/** Shares the report: the link works signed out, and stops working once revoked. */
export async function shareAndRevokeReport(j: Journey): Promise<void> {
  const minted = await j.post(`/v1/analysis/report/${j.runId}/share`, {});
  expect(minted.status).toBe(201);
  const share = (await read(minted, enveloped(shareLinkSchema))).data;
  rememberSecret(share.token);
  expect(share).toMatchObject({ audience: 'anyone', emails: [], expires_at: null });
  const path = new URL(share.url).pathname;
  expect(path).toBe(`/v1/analysis/shared/${share.token}`);

  const shared = await j.get(path, {});
  expect(shared.status).toBe(200);
  expect((await read(shared, enveloped(reportSchema))).data).toMatchObject({
    run_id: j.runId,
    domain: DOMAIN,
  });
  const page = await j.get(path, { accept: 'text/html' });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  expect(await page.text()).toContain(DOMAIN);
  const sharedPdf = await j.get(`${path}/pdf`, {});
  expect(sharedPdf.status).toBe(200);
  expect(
    Buffer.from(await sharedPdf.arrayBuffer())
      .subarray(0, 5)
      .toString('latin1'),
  ).toBe('%PDF-');

  const revoke = await fetch(j.url(`/v1/analysis/report/${j.runId}/share`), {
    method: 'DELETE',
    headers: j.bearer(),
  });
  expect(revoke.status).toBe(200);
  expect(await revoke.json()).toMatchObject({ data: { revoked: true } });
  await problemOf(await j.get(path, {}), 410, 'gone');
  await problemOf(await j.get(`${path}/pdf`, {}), 410, 'gone');
  const gonePage = await j.get(path, { accept: 'text/html' });
  expect(gonePage.status).toBe(410);
  expect(await gonePage.text()).toContain('Link revoked');
  // Revoked already: nothing live to revoke.
  expect(
    (await fetch(j.url(`/v1/analysis/report/${j.runId}/share`), { method: 'DELETE', headers: j.bearer() }))
      .status,
  ).toBe(404);
}
