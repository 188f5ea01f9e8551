import { describe, expect, it } from '@jest/globals';
import { byCodeUnits } from '../src/index.js';

describe('byCodeUnits', () => {
  it('orders ISO times as time orders them, and ids the same on every machine', () => {
    const times = ['2026-11-27T10:00:00Z', '2026-11-27T09:59:59Z', '2026-01-01T00:00:00Z'];
    expect([...times].sort(byCodeUnits)).toEqual([
      '2026-01-01T00:00:00Z',
      '2026-11-27T09:59:59Z',
      '2026-11-27T10:00:00Z',
    ]);
    // By code units, not a language's collation: capitals first, `_` between them and small letters.
    expect(['b', 'a_b', 'B', 'ab', 'A'].sort(byCodeUnits)).toEqual(['A', 'B', 'a_b', 'ab', 'b']);
  });

  it('answers 0 for equal text only', () => {
    expect(byCodeUnits('put', 'put')).toBe(0);
    expect(byCodeUnits('call', 'put')).toBeLessThan(0);
    expect(byCodeUnits('put', 'call')).toBeGreaterThan(0);
  });
});
