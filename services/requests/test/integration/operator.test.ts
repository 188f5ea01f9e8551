import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import request from 'supertest';
import { callerHeaders, operatorCaller } from '@meridian/http-kit/testing';
import { startRequests, type Requests } from './harness.js';

/** The operator console's service requests and bookings, with billing beside as its own process. */
describe('operator routes of service requests and bookings', () => {
  let h: Requests;
  const owner = randomUUID();
  const operator = randomUUID();
  let bookingId = '';

  const operatorHeaders = (totp = true) => callerHeaders(operatorCaller(operator, { totp_active: totp }));
  const slotIn = (hours: number) => {
    const t = new Date(Date.now() + hours * 3_600_000);
    t.setUTCMinutes(0, 0, 0);
    return t.toISOString();
  };

  beforeAll(async () => {
    h = await startRequests('requests_operator', {
      CONSULTING_HOURS: 'mon-sun 00:00-24:00',
      CONSULTING_NOTICE_HOURS: '1',
    });
    for (const body of [
      { kind: 'pentest', domain: 'shop.operator.example', detail: 'before launch' },
      { kind: 'consultancy', detail: 'threat model' },
    ])
      expect(
        (
          await request(h.app)
            .post('/v1/requests')
            .set(await h.as(owner))
            .send(body)
        ).status,
      ).toBe(200);
    await h.grant(owner, 200_000_000);
    const booked = await request(h.app)
      .post('/v1/consulting/bookings')
      .set(await h.as(owner))
      .send({ starts_at: slotIn(30), topic: 'review of the findings' });
    expect(booked.status).toBe(201);
    bookingId = booked.body.data.id;
  }, 90_000);
  afterAll(async () => h?.close());

  it('refuses a session without the operator role, and an operator without TOTP', async () => {
    for (const path of ['/v1/operator/requests', '/v1/operator/bookings']) {
      const plain = await request(h.app)
        .get(path)
        .set(await h.as(owner));
      expect(plain.status).toBe(403);
      expect(plain.body.error_category).toBe('operator_role_required');
      const noTotp = await request(h.app)
        .get(path)
        .set(await operatorHeaders(false));
      expect(noTotp.status).toBe(403);
      expect(noTotp.body.error_category).toBe('operator_totp_required');
    }
    const mark = await request(h.app)
      .post('/v1/operator/requests/1')
      .set(await h.as(owner))
      .send({ status: 'closed' });
    expect(mark.status).toBe(403);
  });

  it('lists every account’s requests, filtered by status, kind and domain', async () => {
    const all = await request(h.app)
      .get('/v1/operator/requests')
      .set(await operatorHeaders());
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(2);
    const pentests = await request(h.app)
      .get('/v1/operator/requests?kind=pentest&domain=shop.operator.example&status=open')
      .set(await operatorHeaders());
    expect(pentests.body.data).toEqual([
      expect.objectContaining({
        account_id: owner,
        kind: 'pentest',
        domain: 'shop.operator.example',
        count: 1,
      }),
    ]);
    const bad = await request(h.app)
      .get('/v1/operator/requests?kind=scan')
      .set(await operatorHeaders());
    expect(bad.status).toBe(400);
  });

  it('marks a request with a note, logged append-only with who and why', async () => {
    const id = (
      await request(h.app)
        .get('/v1/operator/requests?kind=consultancy')
        .set(await operatorHeaders())
    ).body.data[0].id as number;
    const marked = await request(h.app)
      .post(`/v1/operator/requests/${id}`)
      .set(await operatorHeaders())
      .send({ status: 'reviewed', note: 'called back, proposal sent' });
    expect(marked.status).toBe(200);
    expect(marked.body.data).toMatchObject({ id, status: 'reviewed', reviewed_by: `operator:${operator}` });
    const reviewed = await request(h.app)
      .get('/v1/operator/requests?status=reviewed')
      .set(await operatorHeaders());
    expect(reviewed.body.data).toEqual([
      expect.objectContaining({ id, note: 'called back, proposal sent', status: 'reviewed' }),
    ]);
    const missing = await request(h.app)
      .post('/v1/operator/requests/999999')
      .set(await operatorHeaders())
      .send({ status: 'closed' });
    expect(missing.status).toBe(404);

    const log = await h.deps.db
      .selectFrom('operator_actions')
      .select(['actor', 'action', 'target', 'reason'])
      .execute();
    expect(log).toEqual([
      {
        actor: `operator:${operator}`,
        action: 'request.mark.reviewed',
        target: `request:${id}`,
        reason: 'called back, proposal sent',
      },
    ]);
    await expect(sql`update requests.operator_actions set reason = 'x'`.execute(h.deps.db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`delete from requests.operator_actions`.execute(h.deps.db)).rejects.toThrow(
      /append-only/,
    );
  });

  it('lists every account’s consulting bookings in a window', async () => {
    const res = await request(h.app)
      .get('/v1/operator/bookings?status=confirmed')
      .set(await operatorHeaders());
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({
        id: bookingId,
        account_id: owner,
        status: 'confirmed',
        topic: 'review of the findings',
      }),
    ]);
    const past = await request(h.app)
      .get(`/v1/operator/bookings?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z`)
      .set(await operatorHeaders());
    expect(past.body.data).toEqual([]);
  });
});
