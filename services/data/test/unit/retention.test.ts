import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../src/config.js';
import { mayHaveMore, retentionCutoffs } from '../../src/domain/retention.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

describe('retention rule', () => {
  it('keeps 48 h of 1s bars and 7 days of trades by default', () => {
    const config = parseConfig({ INTERNAL_AUTH_SECRET: 'x'.repeat(32) });
    expect(retentionCutoffs(NOW, config.retention)).toEqual({
      candles_1s: new Date('2026-11-19T12:00:00Z'),
      trades: new Date('2026-11-14T12:00:00Z'),
    });
  });

  it('follows the settings, and refuses a retention below one hour or day', () => {
    const config = parseConfig({
      INTERNAL_AUTH_SECRET: 'x'.repeat(32),
      DATA_RETENTION_1S_HOURS: '6',
      DATA_RETENTION_TRADES_DAYS: '30',
    });
    expect(retentionCutoffs(NOW, config.retention)).toEqual({
      candles_1s: new Date('2026-11-21T06:00:00Z'),
      trades: new Date('2026-10-22T12:00:00Z'),
    });
    expect(() => parseConfig({ INTERNAL_AUTH_SECRET: 'x'.repeat(32), DATA_RETENTION_1S_HOURS: '0' })).toThrow(
      /DATA_RETENTION_1S_HOURS/,
    );
    expect(() =>
      parseConfig({ INTERNAL_AUTH_SECRET: 'x'.repeat(32), DATA_RETENTION_TRADES_DAYS: '1.5' }),
    ).toThrow(/DATA_RETENTION_TRADES_DAYS/);
  });

  it('goes on deleting only while batches come back full', () => {
    expect(mayHaveMore(10_000, 10_000)).toBe(true);
    expect(mayHaveMore(9_999, 10_000)).toBe(false);
    expect(mayHaveMore(0, 10_000)).toBe(false);
  });
});
