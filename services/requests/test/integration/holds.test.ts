import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { expireHolds } from '../../src/db/repositories/bookings.js';
import { startRequests, type Requests } from './harness.js';

const DAY_MS = 86_400_000;

describe('consulting slots held without paying', () => {
  let h: Requests;

  beforeAll(async () => {
    // Four slots a day, every day, 24 hours' notice: half a day is two slots.
    h = await startRequests('requests_holds', { CONSULTING_HOURS: 'mon-sun 09:00-13:00' });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  /** The slot at `hour` UTC, `days` days after today. */
  const slot = (days: number, hour: number) =>
    new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + days * DAY_MS + hour * 3_600_000).toISOString();
  const book = async (accountId: string, body: object) =>
    request(h.app)
      .post('/v1/consulting/bookings')
      .set(await h.as(accountId))
      .send(body);
  const deposit = (accountId: string, startsAt: string) =>
    book(accountId, { starts_at: startsAt, payment: 'deposit' });

  it('holds at most two unpaid slots per account, each for 15 minutes, and frees the cap when a hold lapses', async () => {
    const hoarder = randomUUID();
    const first = await deposit(hoarder, slot(2, 9));
    const second = await deposit(hoarder, slot(3, 9));
    expect([first.status, second.status]).toEqual([201, 201]);
    const { created_at, expires_at } = first.body.data;
    expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(15 * 60_000);
    const third = await deposit(hoarder, slot(5, 9));
    expect(third.status).toBe(409);
    expect(third.body.error_category).toBe('hold_limit');
    expect((await deposit(randomUUID(), slot(5, 9))).status).toBe(201);

    await expireHolds(h.deps.db, new Date(Date.now() + 16 * 60_000));
    expect((await deposit(hoarder, slot(6, 9))).status).toBe(201);
  });

  it("never lets unpaid holds take more than half of a day's slots, even when asked at once; credit still books", async () => {
    const day = 7;
    const answers = await Promise.all([9, 10, 11, 12].map((hour) => deposit(randomUUID(), slot(day, hour))));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
    const refused = answers.filter((r) => r.status === 409);
    expect(refused.every((r) => r.body.error_category === 'hold_limit')).toBe(true);

    const free = [9, 10, 11, 12]
      .map((hour) => slot(day, hour))
      .filter((s) => !answers.some((r) => r.status === 201 && r.body.data.starts_at === s));
    const payer = randomUUID();
    await h.grant(payer, 200_000_000);
    const paid = await book(payer, { starts_at: free[0] });
    expect(paid.status).toBe(201);
    expect(paid.body.data.status).toBe('confirmed');
  });

  it('lists as available only slots a booking would take now, not those inside the notice', async () => {
    const res = await request(h.app)
      .get(`/v1/consulting/slots?to=${encodeURIComponent(new Date(Date.now() + 4 * DAY_MS).toISOString())}`)
      .set(await h.as(randomUUID()));
    expect(res.status).toBe(200);
    const slots = res.body.data as { starts_at: string; available: boolean }[];
    const soon = slots.filter((s) => Date.parse(s.starts_at) < Date.now() + DAY_MS);
    expect(soon.length).toBeGreaterThan(0);
    expect(soon.every((s) => !s.available)).toBe(true);
    const bookableNow = slots.find((s) => s.available)!;
    expect((await deposit(randomUUID(), bookableNow.starts_at)).status).toBe(201);
    for (const s of soon) expect((await deposit(randomUUID(), s.starts_at)).status).toBe(400);
  });
});
