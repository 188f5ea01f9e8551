import { describe, expect, it } from '@jest/globals';
import { scaleBtcBatch } from '../../src/domain/feeds/btc-level.js';
import { statusHolds } from '../../src/domain/feeds/sports.js';
import { loopedRecordedTime, slotShift } from '../../src/domain/replay-clock.js';

describe('the slot shift', () => {
  it('lands the recorded instant at the start of the current slot, the same all through the slot', () => {
    const a = slotShift('2024-11-14T12:05:00Z', new Date('2026-11-25T19:46:10Z'), 15 * 60_000);
    const b = slotShift('2024-11-14T12:05:00Z', new Date('2026-11-25T19:59:59Z'), 15 * 60_000);
    expect(a.clock('2024-11-14T12:05:00Z')).toBe('2026-11-25T19:45:00.000Z');
    expect(b.clock('2024-11-14T12:00:00Z')).toBe('2026-11-25T19:40:00.000Z');
    const next = slotShift('2024-11-14T12:05:00Z', new Date('2026-11-25T20:00:00Z'), 15 * 60_000);
    expect(next.clock('2024-11-14T12:05:00Z')).toBe('2026-11-25T20:00:00.000Z');
  });

  it('maps a wall instant to the looped recording the market replay plays then', () => {
    const rec = { start: Date.parse('2023-03-08T00:00:00Z'), spanMs: 7 * 86_400_000 };
    const wall = Date.parse('2026-11-25T19:46:00Z');
    const recorded = loopedRecordedTime(rec, wall);
    expect(recorded).toBeGreaterThanOrEqual(rec.start);
    expect(recorded).toBeLessThan(rec.start + rec.spanMs);
    expect(recorded).toBe(rec.start + (wall % rec.spanMs));
  });
});

describe('one BTC level', () => {
  it('scales prices and keeps moneyness, delta, IV and the basis', () => {
    const option = {
      instrument: 'BTC-26JUN26-9000-C',
      ts: '2026-01-01T00:00:00Z',
      underlying: 'BTC',
      expiry: '2026-06-26T08:00:00Z',
      strike: 9000,
      option_type: 'call' as const,
      underlying_px: 9000,
      mark_price_usd: 900,
      mark_iv: 0.8,
      delta: 0.55,
      gamma: 0.0002,
      vega: 20,
      theta: -10,
      open_interest: 5,
    };
    const scaled = scaleBtcBatch({ kind: 'option_marks', source: 'deribit', rows: [option] }, 2.5);
    expect(scaled.rows[0]).toMatchObject({
      instrument: 'BTC-26JUN26-22500-C',
      strike: 22500,
      underlying_px: 22500,
      mark_price_usd: 2250,
      mark_iv: 0.8,
      delta: 0.55,
      gamma: 0.00008,
      vega: 50,
      theta: -25,
    });
    const marks = scaleBtcBatch(
      {
        kind: 'mark_prices',
        source: 'deribit',
        symbol: 'BTC-USD',
        rows: [{ ts: option.ts, mark_price: 101, index_price: 100 }],
      },
      2,
    );
    expect(marks.rows[0]).toMatchObject({ mark_price: 202, index_price: 200 });
    const cap = scaleBtcBatch(
      {
        kind: 'observations',
        source: 'blockchain_info',
        rows: [
          {
            key: 'BTC',
            metric: 'btc_market_cap',
            ts: option.ts,
            value: 2000,
            payload: { price_usd: 100, supply_btc: 20 },
          },
        ],
      },
      0.5,
    );
    expect(cap.rows[0]).toMatchObject({ value: 1000, payload: { price_usd: 50, supply_btc: 20 } });
  });
});

describe('a stored game status at read time', () => {
  it('no longer shows a game as scheduled once its start has passed', () => {
    const now = new Date('2026-11-25T20:00:00Z');
    expect(statusHolds({ status: 'scheduled', start_time: '2026-11-25T20:30:00Z' }, now)).toBe(true);
    expect(statusHolds({ status: 'scheduled', start_time: '2026-11-25T19:30:00Z' }, now)).toBe(false);
    expect(statusHolds({ status: 'final', start_time: '2026-11-25T17:00:00Z' }, now)).toBe(true);
  });
});
