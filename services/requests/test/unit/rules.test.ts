import { describe, expect, it } from '@jest/globals';
import { bookable, parseHours, slotAt, slotsBetween } from '../../src/domain/availability.js';
import { dayHoldLimit, mayHoldUnpaid } from '../../src/domain/holds.js';
import { mayOpenRequest, requestKey } from '../../src/domain/service-request.js';

const hours = (text: string) => {
  const parsed = parseHours(text);
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.value;
};

describe('unpaid holds', () => {
  const rules = { perAccount: 2, dayShare: 0.5 };

  it("takes at most half of a day's slots, rounded down, on that UTC day only", () => {
    const w = hours('mon-fri 09:00-17:00');
    expect(dayHoldLimit(w, 60, rules, new Date('2026-11-25T16:30:00Z'))).toBe(4);
    expect(dayHoldLimit(w, 60, rules, new Date('2026-11-28T10:00:00Z'))).toBe(0);
    expect(dayHoldLimit(hours('wed 09:00-12:00'), 60, rules, new Date('2026-11-25T00:00:00Z'))).toBe(1);
  });

  it("refuses one more hold past the account's cap or the day's share", () => {
    expect(mayHoldUnpaid(rules, { account: 1, day: 3 }, 4).ok).toBe(true);
    expect(mayHoldUnpaid(rules, { account: 2, day: 0 }, 4)).toMatchObject({ ok: false, code: 'hold_limit' });
    expect(mayHoldUnpaid(rules, { account: 0, day: 4 }, 4)).toMatchObject({ ok: false, code: 'hold_limit' });
  });
});

describe('consulting hours', () => {
  it('reads day ranges, single days and several windows, refusing what it cannot read', () => {
    expect(hours('mon-fri 09:00-17:00')).toHaveLength(5);
    expect(hours('fri-mon 10:00-12:00').map((w) => w.day)).toEqual([5, 6, 0, 1]);
    expect(hours('sat 10:00-13:00; sun 00:00-24:00')).toEqual([
      { day: 6, fromMinute: 600, toMinute: 780 },
      { day: 0, fromMinute: 0, toMinute: 1440 },
    ]);
    for (const bad of ['', 'mon', 'mon 9-17', 'xyz 09:00-10:00', 'mon 17:00-09:00', 'mon 09:00-25:00'])
      expect(parseHours(bad).ok).toBe(false);
  });

  it('cuts whole slots from each window, in UTC, leaving out one that would overrun', () => {
    const slots = slotsBetween(
      hours('wed 09:00-11:30'),
      60,
      new Date('2026-11-25T00:00:00Z'),
      new Date('2026-11-26T00:00:00Z'),
    );
    expect(slots.map((s) => s.starts_at.toISOString())).toEqual([
      '2026-11-25T09:00:00.000Z',
      '2026-11-25T10:00:00.000Z',
    ]);
    expect(slots[0]!.ends_at.toISOString()).toBe('2026-11-25T10:00:00.000Z');
    const week = slotsBetween(
      hours('mon-fri 09:00-17:00'),
      60,
      new Date('2026-11-23T00:00:00Z'),
      new Date('2026-11-30T00:00:00Z'),
    );
    expect(week).toHaveLength(40);
  });

  it('finds the slot at an exact start and no other', () => {
    const w = hours('mon-fri 09:00-17:00');
    expect(slotAt(w, 60, new Date('2026-11-25T10:00:00Z'))).toBeDefined();
    expect(slotAt(w, 60, new Date('2026-11-25T10:30:00Z'))).toBeUndefined();
    expect(slotAt(w, 60, new Date('2026-11-28T10:00:00Z'))).toBeUndefined();
  });

  it('books only between the notice and the horizon', () => {
    const rules = { noticeMs: 24 * 3_600_000, horizonMs: 60 * 86_400_000 };
    const now = new Date('2026-11-25T12:00:00Z');
    const at = (iso: string) => ({ starts_at: new Date(iso), ends_at: new Date(iso) });
    expect(bookable(at('2026-11-25T15:00:00Z'), rules, now).ok).toBe(false);
    expect(bookable(at('2026-11-27T09:00:00Z'), rules, now).ok).toBe(true);
    expect(bookable(at('2027-03-01T09:00:00Z'), rules, now).ok).toBe(false);
  });
});

describe('service requests', () => {
  it('names a domain for a pentest and its discussion, none for a consultancy, in lower case', () => {
    expect(requestKey({ kind: 'pentest', domain: 'Example.COM' })).toEqual({
      ok: true,
      value: { kind: 'pentest', domain: 'example.com', detail: null },
    });
    expect(requestKey({ kind: 'consultancy', domain: '', detail: '  CSP help ' })).toEqual({
      ok: true,
      value: { kind: 'consultancy', domain: '', detail: 'CSP help' },
    });
    expect(requestKey({ kind: 'consultancy', domain: 'example.com' }).ok).toBe(false);
    expect(requestKey({ kind: 'pentest_discussion' }).ok).toBe(false);
  });
});

describe('open service requests', () => {
  const rules = { perAccount: 2, liveMs: 30 * 86_400_000 };

  it('caps new requests naming a domain, but never asking again for an open one or a consultancy', () => {
    expect(mayOpenRequest(rules, { domain: 'a.example', alreadyOpen: false }, 1).ok).toBe(true);
    expect(mayOpenRequest(rules, { domain: 'b.example', alreadyOpen: false }, 2)).toMatchObject({
      ok: false,
      code: 'request_limit',
    });
    expect(mayOpenRequest(rules, { domain: 'a.example', alreadyOpen: true }, 2).ok).toBe(true);
    expect(mayOpenRequest(rules, { domain: '', alreadyOpen: false }, 2).ok).toBe(true);
  });
});
