import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { reportSchema } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { CHROMIUM_PATH, hasChromium, launchChromium } from '@meridian/test-peers';
import { up as withholdFileEvidence } from '../../src/db/migrations/2026_11_27_1610_withhold_file_evidence.js';
import { up as withholdGitSections } from '../../src/db/migrations/2026_12_02_0130_withhold_git_section_credentials.js';
import { sampleReport } from '../report-fixture.js';
import { startAnalysis, type Analysis } from './harness.js';

describe('reports, PDFs and share links', () => {
  let h: Analysis;
  const owner = randomUUID();
  const runId = `run-${randomUUID()}`;

  beforeAll(async () => {
    h = await startAnalysis('analysis_reports', { PUBLIC_BASE_URL: 'https://audit.example.com' });
    await h.finishedRun(owner, sampleReport(runId, 6));
  });
  afterAll(async () => h?.close());

  // Anonymous callers still come through the gateway, which vouches for them as anonymous.
  const as = async (accountId: string | null) => (accountId ? h.as(accountId) : callerHeaders());
  const share = async (body: object, accountId = owner) =>
    request(h.app)
      .post(`/v1/analysis/report/${runId}/share`)
      .set(await as(accountId))
      .send(body);
  const shared = async (token: string, accountId: string | null = null, accept = 'application/json') =>
    request(h.app)
      .get(`/v1/analysis/shared/${token}`)
      .set(await as(accountId))
      .set('Accept', accept);

  it("answers the owner's report and PDF, and another account a 404 for both", async () => {
    const res = await request(h.app)
      .get(`/v1/analysis/report/${runId}`)
      .set(await h.as(owner));
    expect(res.status).toBe(200);
    expect(reportSchema.parse(res.body.data)).toMatchObject({ run_id: runId, grade: 'C' });
    const pdf = await request(h.app)
      .get(`/v1/analysis/report/${runId}/pdf`)
      .set(await h.as(owner))
      .buffer(true);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    const stranger = randomUUID();
    for (const path of [`/v1/analysis/report/${runId}`, `/v1/analysis/report/${runId}/pdf`])
      expect(
        (
          await request(h.app)
            .get(path)
            .set(await h.as(stranger))
        ).status,
      ).toBe(404);
    expect((await share({}, stranger)).status).toBe(404);
    expect(
      (
        await request(h.app)
          .delete(`/v1/analysis/report/${runId}/share`)
          .set(await h.as(stranger))
      ).status,
    ).toBe(404);
  });

  it('refuses a report id no run can have (a NUL, a non-ASCII byte) with a 400 problem, not a 500', async () => {
    for (const path of [
      '/v1/analysis/report/%00',
      '/v1/analysis/report/a%00b/pdf',
      '/v1/analysis/report/%C3%A4/trace',
    ]) {
      const res = await request(h.app)
        .get(path)
        .set(await h.as(owner));
      expect({ path, status: res.status, type: res.type }).toEqual({
        path,
        status: 400,
        type: 'application/problem+json',
      });
    }
    const share = await request(h.app)
      .post('/v1/analysis/report/%00/share')
      .set(await h.as(owner))
      .send({});
    expect(share.status).toBe(400);
  });

  it('withholds the file quotes of reports stored before evidence named keys only, from the owner and the share link', async () => {
    const old = sampleReport(`run-${randomUUID()}`);
    const quoted = 'HTTP 200, 31 bytes: APP_KEY=base64:abc\nDB_PASSWORD=hunter2\n';
    // As stored before the finding had an outcome and before its evidence was redacted.
    const { outcome: _drop, ...exposed } = { ...old.findings[0]!, id: 'files.exposed.env', evidence: quoted };
    old.findings = [exposed as (typeof old.findings)[number], ...old.findings.slice(1)];
    await h.finishedRun(owner, old);
    await withholdFileEvidence(h.deps.db);
    const read = await request(h.app)
      .get(`/v1/analysis/report/${old.run_id}`)
      .set(await h.as(owner));
    const findings = reportSchema.parse(read.body.data).findings;
    expect(findings[0]).toMatchObject({ id: 'files.exposed.env', outcome: 'problem' });
    expect(findings[0]!.evidence).toMatch(/^evidence withheld/);
    expect(findings.slice(1)).toEqual(old.findings.slice(1));
    const token = (
      await request(h.app)
        .post(`/v1/analysis/report/${old.run_id}/share`)
        .set(await h.as(owner))
        .send({})
    ).body.data.token;
    expect((await shared(token, null, 'text/html')).text).not.toContain('hunter2');
    expect(JSON.stringify(read.body)).not.toContain('hunter2');
  });

  it('withholds the .git/config evidence of reports stored when a section name was quoted with its token', async () => {
    const old = sampleReport(`run-${randomUUID()}`);
    const quoted =
      'https://e.com/.git/config: HTTP 200, 90 bytes; Git config keys: url.https://x-access-token:ghs_oldToken1@github.com/.insteadOf (19 characters)';
    old.findings = [
      { ...old.findings[0]!, id: 'files.exposed.git-config', evidence: quoted },
      ...old.findings.slice(1),
    ];
    await h.finishedRun(owner, old);
    await withholdGitSections(h.deps.db);
    const read = await request(h.app)
      .get(`/v1/analysis/report/${old.run_id}`)
      .set(await h.as(owner));
    const findings = reportSchema.parse(read.body.data).findings;
    expect(findings[0]).toMatchObject({ id: 'files.exposed.git-config' });
    expect(findings[0]!.evidence).toMatch(/^evidence withheld/);
    expect(findings.slice(1)).toEqual(old.findings.slice(1));
    expect(JSON.stringify(read.body)).not.toContain('ghs_oldToken1');
  });

  it('mints a link anyone can read with the token alone, and revokes it at once', async () => {
    const minted = await share({});
    expect(minted.status).toBe(201);
    const { url, token } = minted.body.data;
    expect(url).toBe(`https://audit.example.com/v1/analysis/shared/${token}`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const read = await shared(token);
    expect(read.status).toBe(200);
    expect(read.body.data.run_id).toBe(runId);
    expect(
      (
        await request(h.app)
          .get(`/v1/analysis/shared/${token}/pdf`)
          .set(await as(null))
      ).type,
    ).toBe('application/pdf');
    expect(
      (
        await request(h.app)
          .delete(`/v1/analysis/report/${runId}/share`)
          .set(await h.as(owner))
      ).status,
    ).toBe(200);
    const gone = await shared(token);
    expect(gone.status).toBe(410);
    expect(gone.type).toBe('application/problem+json');
    expect(
      (
        await request(h.app)
          .delete(`/v1/analysis/report/${runId}/share`)
          .set(await h.as(owner))
      ).status,
    ).toBe(404);
    expect((await shared('x'.repeat(43))).status).toBe(404);
  });

  it('keeps one live link: a new one replaces the old, with its audience and expiry', async () => {
    const first = (await share({})).body.data.token;
    const second = await share({
      audience: 'signed_in',
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(second.body.data).toMatchObject({ audience: 'signed_in' });
    expect((await shared(first)).status).toBe(410);
    expect((await shared(second.body.data.token)).status).toBe(401);
    expect((await shared(second.body.data.token, randomUUID())).status).toBe(200);
    for (const bad of [
      { audience: 'emails' },
      { audience: 'anyone', emails: ['a@b.co'] },
      { expires_at: '2020-01-01T00:00:00Z' },
      { audience: 'all' },
      { extra: 1 },
    ])
      expect((await share(bad)).status).toBe(400);
  });

  it('opens in a browser as a page with the grade and findings, and a revoked link as a plain page', async () => {
    // A browser test: Debian's chromium through playwright-core.
    if (!hasChromium()) {
      console.error(`skipped: no browser at ${CHROMIUM_PATH} (apt-get install -y chromium)`);
      return;
    }
    const { token } = (await share({})).body.data;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      // The gateway's anonymous caller assertion, as it adds to a signed-out visitor's request.
      await page.setExtraHTTPHeaders(await callerHeaders());
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(`${h.url}/v1/analysis/shared/${token}`);
      expect(await page.locator('.grade').textContent()).toBe('C');
      expect(await page.getByText('Strict-Transport-Security header missing').isVisible()).toBe(true);
      // Readable on a phone: nothing wider than the screen.
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')).toBe(true);
      expect(errors).toEqual([]);
      await request(h.app)
        .delete(`/v1/analysis/report/${runId}/share`)
        .set(await h.as(owner));
      const revoked = await page.goto(`${h.url}/v1/analysis/shared/${token}`);
      expect(revoked?.status()).toBe(410);
      expect(await page.locator('h1').textContent()).toBe('Link revoked');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
