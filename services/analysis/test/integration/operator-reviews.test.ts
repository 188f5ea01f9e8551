import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
import { reportSchema } from '@meridian/contracts';
import { callerHeaders, operatorCaller } from '@meridian/http-kit/testing';
import { startServiceProcess, startSmtp, type ServiceProcess } from '@meridian/test-peers';
import { refundOverdueReviews } from '../../src/jobs/overdue-reviews.js';
import { startPlatform, type Platform } from './platform-harness.js';
import { pdfText } from './support/pdf-text.js';

/**
 * The review queue of the operator console: analysis with billing and identity as their own
 * processes, identity mailing through a real SMTP server on loopback. The review tier's run is
 * commissioned and paid from credit as an owner would.
 */
describe('operator review queue', () => {
  let h: Platform;
  let identity: ServiceProcess;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const owner = randomUUID();
  const operator = randomUUID();
  const unnamedOperator = randomUUID();
  const unnamedEmail = `op.unnamed.${Date.now()}@example.com`;
  const ownerEmail = `owner.${Date.now()}@example.com`;
  const RUN_PRICE = 99_000_000;
  /** audit_review less audit_secure at billing's default prices. */
  const REVIEW_PART = RUN_PRICE - 29_000_000;

  const operatorHeaders = (more: { role?: 'operator'; totp_active?: boolean; account_id?: string } = {}) =>
    callerHeaders(operatorCaller(more.account_id ?? operator, more));
  const asOperator = async (method: 'get' | 'post', path: string, body?: object, account = operator) => {
    const agent = request(h.a.app);
    const headers = await operatorHeaders({ account_id: account });
    return method === 'get' ? agent.get(path).set(headers) : agent.post(path).set(headers).send(body);
  };

  /** A finished review-tier run of the owner's domain, paid from credit. */
  const reviewRun = async (domain: string): Promise<string> => {
    await h.verified(owner, domain);
    const authorized = await request(h.a.app)
      .post('/v1/audit/authorize')
      .set(await h.as(owner))
      .send({ domain, attestation: { owner: true, name: 'Ada Owner' } });
    expect(authorized.status).toBe(201);
    const made = await request(h.a.app)
      .post('/v1/analysis/run')
      .set(await h.as(owner))
      .send({ domain, tier: 'audit_review' });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    await waitFor(
      async () =>
        (await h.a.deps.db.selectFrom('runs').select('status').where('id', '=', id).executeTakeFirst())
          ?.status === 'succeeded',
      { what: `run ${id} succeeded`, timeoutMs: 30_000 },
    );
    return id;
  };

  beforeAll(async () => {
    h = await startPlatform('analysis_reviews', { PUBLIC_BASE_URL: 'https://audit.example.com' }, 'real');
    smtp = await startSmtp();
    identity = await startServiceProcess('services/identity/src/main.ts', {
      DATABASE_URL: h.databaseUrl,
      NATS_URL: h.env.NATS_URL!,
      BUS_NAMESPACE: h.env.BUS_NAMESPACE!,
      INTERNAL_AUTH_SECRET: h.env.INTERNAL_AUTH_SECRET!,
      SMTP_URL: smtp.url,
      TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL: 'https://audit.example.com',
      LOG_LEVEL: 'warn',
    });
    // The two people as identity holds them: a confirmed owner, and an operator with a nickname.
    await sql`insert into identity.accounts (id, email, email_confirmed_at, nickname)
      values (${owner}::uuid, ${ownerEmail}, now(), null),
             (${operator}::uuid, ${`op.${Date.now()}@example.com`}, now(), 'desk-ana'),
             (${unnamedOperator}::uuid, ${unnamedEmail}, now(), null)`.execute(h.a.deps.db);
    // The operator who grants the owner's credit by billing:admin, checked by this identity.
    await sql`insert into identity.operator_roles (account_id, granted_at, granted_by)
      values (${unnamedOperator}::uuid, now(), 'test')`.execute(h.a.deps.db);
    await h.grant(owner, 3 * RUN_PRICE, unnamedEmail);
  }, 180_000);
  afterAll(async () => {
    await identity?.close();
    await smtp?.close();
    await h?.close();
  });

  it('refuses a session without the operator role, an operator without TOTP, and an API key', async () => {
    const paths = ['/v1/operator/reviews', `/v1/operator/reviews/run-${randomUUID()}`];
    for (const path of paths) {
      const plain = await request(h.a.app)
        .get(path)
        .set(await h.as(owner));
      expect(plain.status).toBe(403);
      expect(plain.body.error_category).toBe('operator_role_required');
      const noTotp = await request(h.a.app)
        .get(path)
        .set(await operatorHeaders({ totp_active: false }));
      expect(noTotp.status).toBe(403);
      expect(noTotp.body.error_category).toBe('operator_totp_required');
      const key = await request(h.a.app)
        .get(path)
        .set(await callerHeaders({ account_id: operator, auth: 'api_key', key_id: 'k1', role: 'operator' }));
      expect(key.status).toBe(401);
    }
    const write = await request(h.a.app)
      .post(`/v1/operator/reviews/run-${randomUUID()}`)
      .set(await operatorHeaders({ totp_active: false }))
      .send({ note: 'looks fine' });
    expect(write.status).toBe(403);
  });

  it('queues the run as pending and due 72 h after it finished; the report says so until the review is recorded', async () => {
    const runId = await reviewRun('review-one.example');
    const queue = await asOperator('get', '/v1/operator/reviews');
    expect(queue.status).toBe(200);
    const row = queue.body.data.find((r: { run_id: string }) => r.run_id === runId);
    expect(row).toMatchObject({
      account_id: owner,
      domain: 'review-one.example',
      status: 'pending',
      overdue: false,
    });
    expect(Date.parse(row.due_at) - Date.parse(row.finished_at)).toBe(72 * 3_600_000);
    const report = await request(h.a.app)
      .get(`/v1/analysis/report/${runId}`)
      .set(await h.as(owner));
    expect(reportSchema.parse(report.body.data).review).toMatchObject({
      status: 'pending',
      due_at: row.due_at,
    });

    const read = await asOperator('get', `/v1/operator/reviews/${runId}`);
    expect(read.status).toBe(200);
    expect(read.body.data.report.domain).toBe('review-one.example');
  });

  it('records the review once: the report, PDF and shared page show it with its author, the owner is mailed, the action is logged', async () => {
    const runId = (await asOperator('get', '/v1/operator/reviews')).body.data.find(
      (r: { domain: string }) => r.domain === 'review-one.example',
    ).run_id as string;
    const note = 'Reviewed by hand: the CSP finding is real, the rest is noise.';
    const recorded = await asOperator('post', `/v1/operator/reviews/${runId}`, { note });
    expect(recorded.status).toBe(201);
    expect(recorded.body.data).toMatchObject({ run_id: runId, author: 'desk-ana' });
    expect((await asOperator('post', `/v1/operator/reviews/${runId}`, { note: 'again' })).status).toBe(409);

    const report = await request(h.a.app)
      .get(`/v1/analysis/report/${runId}`)
      .set(await h.as(owner));
    expect(report.body.data.review).toMatchObject({ status: 'done', note, author: 'desk-ana' });
    const pdf = await request(h.a.app)
      .get(`/v1/analysis/report/${runId}/pdf`)
      .set(await h.as(owner))
      .buffer(true);
    expect(pdf.status).toBe(200);
    const link = await request(h.a.app)
      .post(`/v1/analysis/report/${runId}/share`)
      .set(await h.as(owner))
      .send({});
    const page = await request(h.a.app)
      .get(`/v1/analysis/shared/${link.body.data.token}`)
      .set(await callerHeaders())
      .set('Accept', 'text/html');
    expect(page.text).toContain('Human review by desk-ana');
    expect(page.text).toContain('the CSP finding is real');

    await waitFor(() => smtp.mails.some((m) => m.to === ownerEmail), {
      what: 'the review mail',
      timeoutMs: 20_000,
    });
    const mail = smtp.mails.find((m) => m.to === ownerEmail)!;
    expect(mail.text).toContain('desk-ana reviewed the audit of review-one.example');

    const log = await h.a.deps.db
      .selectFrom('operator_actions')
      .select(['actor', 'action', 'target', 'reason'])
      .where('target', '=', `run:${runId}`)
      .execute();
    expect(log).toEqual([
      { actor: `operator:${operator}`, action: 'review.record', target: `run:${runId}`, reason: note },
    ]);
    const done = await asOperator('get', '/v1/operator/reviews?status=done');
    expect(done.body.data.map((r: { run_id: string }) => r.run_id)).toContain(runId);
  });

  it('names an operator without a nickname "a Meridian reviewer" on the report, shared page, PDF and mail, never by email', async () => {
    const runId = await reviewRun('review-unnamed.example');
    const note = 'Reviewed by hand: nothing to add.';
    const recorded = await asOperator('post', `/v1/operator/reviews/${runId}`, { note }, unnamedOperator);
    expect(recorded.status).toBe(201);
    expect(recorded.body.data.author).toBe('a Meridian reviewer');
    const report = await request(h.a.app)
      .get(`/v1/analysis/report/${runId}`)
      .set(await h.as(owner));
    expect(report.body.data.review).toMatchObject({ status: 'done', author: 'a Meridian reviewer' });
    const pdf = await request(h.a.app)
      .get(`/v1/analysis/report/${runId}/pdf`)
      .set(await h.as(owner))
      .buffer(true);
    const link = await request(h.a.app)
      .post(`/v1/analysis/report/${runId}/share`)
      .set(await h.as(owner))
      .send({});
    const page = await request(h.a.app)
      .get(`/v1/analysis/shared/${link.body.data.token}`)
      .set(await callerHeaders())
      .set('Accept', 'text/html');
    const pdfWords = await pdfText(pdf.body as Buffer);
    expect(page.text).toContain('Human review by a Meridian reviewer');
    expect(pdfWords.replace(/\s+/g, ' ')).toContain('Human review by a Meridian reviewer');
    const ofRun = () =>
      smtp.mails.find((m) => m.to === ownerEmail && m.text.includes('review-unnamed.example'));
    await waitFor(() => ofRun() !== undefined, { what: 'the review mail', timeoutMs: 20_000 });
    const mail = ofRun()!;
    expect(mail.text).toContain('a Meridian reviewer reviewed the audit of review-unnamed.example');
    for (const text of [JSON.stringify(report.body), page.text, pdfWords, mail.text])
      expect(text).not.toContain(unnamedEmail);
  });

  it('keeps the operator log append-only: the database refuses UPDATE and DELETE', async () => {
    await expect(
      sql`update analysis.operator_actions set reason = 'rewritten'`.execute(h.a.deps.db),
    ).rejects.toThrow(/append-only/);
    await expect(sql`delete from analysis.operator_actions`.execute(h.a.deps.db)).rejects.toThrow(
      /append-only/,
    );
  });

  it("refunds the review's part of a run whose review was not recorded within 72 h, once, through billing", async () => {
    const runId = await reviewRun('review-late.example');
    const before = await h.balance(owner);
    await sql`update analysis.runs set finished_at = now() - interval '73 hours' where id = ${runId}`.execute(
      h.a.deps.db,
    );
    expect(await refundOverdueReviews(h.a.deps)).toEqual([runId]);
    // The automated audit was delivered; what the review tier adds to the secure one comes back.
    expect(await h.balance(owner)).toBe(before + REVIEW_PART);
    expect(await refundOverdueReviews(h.a.deps)).toEqual([]);
    expect(await h.balance(owner)).toBe(before + REVIEW_PART);
    const row = (await asOperator('get', '/v1/operator/reviews')).body.data.find(
      (r: { run_id: string }) => r.run_id === runId,
    );
    expect(row).toMatchObject({ status: 'pending', overdue: true, refund: 'done' });
  });
});
