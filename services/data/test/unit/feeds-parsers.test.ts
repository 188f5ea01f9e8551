import { describe, expect, it } from '@jest/globals';
import { ingestBatchSchema } from '@meridian/contracts';
import { RECORDINGS } from '../../src/adapters/parsers/recordings.js';
import { replayBatches } from '../../src/jobs/feeds/recorded-feeds.js';
import { addMonths, recordedTime, replayShift } from '../../src/domain/replay-clock.js';
import { farsideAmountUsd, parseFarsideFlows } from '../../src/adapters/parsers/feeds/markets.js';
import {
  deribitInstrument,
  parseDeribitOptions,
  parsePythonDict,
} from '../../src/adapters/parsers/derivatives/deribit.js';
import { espnStatus, setsWon } from '../../src/adapters/parsers/feeds/espn.js';
import { gamesFor, type SportEvent } from '../../src/domain/feeds/sports.js';
import { newYorkDayStart, newYorkOffsetMs, newYorkToUtc } from '../../src/domain/feeds/new-york-time.js';
import { csvRecords, parseCsv } from '../../src/adapters/parsers/csv.js';
import { recording } from '../support/recordings.js';

describe('recorded feeds', () => {
  it('every recording parses into valid ingestion batches, all timestamps at or before now', () => {
    const now = new Date('2026-11-21T10:00:00Z');
    for (const r of RECORDINGS) {
      const text = recording(r.file);
      const batches = replayBatches(r, text, now).map((b) => ingestBatchSchema.parse(b));
      expect(batches.length).toBeGreaterThan(1);
      for (const b of batches)
        for (const row of b.rows) expect(Date.parse(row.ts)).toBeLessThanOrEqual(now.getTime());
    }
  });

  it('shifts by whole days (time of day kept) or whole months, never into the future', () => {
    const day = replayShift('2024-11-14T23:30:00Z', new Date('2026-11-21T10:00:00Z'), 'day');
    expect(day.clock('2024-11-14T23:30:00Z')).toBe('2026-11-20T23:30:00.000Z');
    expect(day.clock('2020-06-26T08:00:00Z').slice(11)).toBe('08:00:00.000Z');
    const month = replayShift('2024-11-14T15:00:00Z', new Date('2026-11-10T00:00:00Z'), 'month');
    expect(month.months).toBe(23);
    expect(month.clock('2024-09-01T00:00:00Z')).toBe('2026-08-01T00:00:00.000Z');
    expect(new Date(addMonths(Date.parse('2024-01-31T00:00:00Z'), 1)).toISOString()).toBe(
      '2024-02-29T00:00:00.000Z',
    );
  });
});

describe('Deribit options', () => {
  it('reads greeks from the Python dict string', () => {
    expect(parsePythonDict("{'vega': 2.8678, 'gamma': 7e-05, 'delta': None}")).toEqual({
      vega: 2.8678,
      gamma: 0.00007,
      delta: null,
    });
  });

  it('turns a CSV row into a mark in USD with IV as a fraction', () => {
    const csv = [
      'instrument_name,option_type,strike,expiration_timestamp,timestamp,underlying_index,underlying_price,index_price,interest_rate,mark_price,mark_iv,open_interest,greeks',
      `BTC-26JUN20-9000-C,call,9000.0,1593158400000,1590103213006,BTC-26JUN20,9094.29,9087.85,0.0,0.10903998,84.25,1198.2,"{'vega': 11.129, 'theta': -13.25778, 'rho': 4.0422, 'gamma': 0.00016, 'delta': 0.56783}"`,
    ].join('\n');
    const batch = parseDeribitOptions(csv, recordedTime);
    expect(batch.rows[0]).toMatchObject({
      instrument: 'BTC-26JUN20-9000-C',
      expiry: '2020-06-26T08:00:00.000Z',
      option_type: 'call',
      underlying_px: 9094.29,
      mark_iv: 0.8425,
      delta: 0.56783,
      open_interest: 1198.2,
    });
    expect((batch.rows[0] as { mark_price_usd: number }).mark_price_usd).toBeCloseTo(0.10903998 * 9094.29, 9);
    expect(deribitInstrument('BTC', '2026-12-05T08:00:00Z', 6750, 'put')).toBe('BTC-5DEC26-6750-P');
  });
});

describe('Farside ETF flows', () => {
  it('reads US$m with parentheses for outflows and a dash for none', () => {
    expect(farsideAmountUsd('(113.3)')).toBe(-113_300_000);
    expect(farsideAmountUsd('1,120.3')).toBe(1_120_300_000);
    expect(farsideAmountUsd('-')).toBe(0);
  });

  it('keeps the closing Total row as the cumulative flow', () => {
    const csv = 'Date,IBIT,GBTC,Total\n13 Nov 2024,(113.3),(12.9),(126.2)\nTotal,28458.2,(20445.0),8013.2\n';
    const rows = parseFarsideFlows(csv, recordedTime).rows;
    expect(rows).toContainEqual(
      expect.objectContaining({ key: 'GBTC', metric: 'etf_cumulative_net_flow', value: -20_445_000_000 }),
    );
    expect(rows).toContainEqual(
      expect.objectContaining({
        key: 'ALL',
        metric: 'etf_net_flow',
        ts: '2024-11-13T00:00:00.000Z',
        value: -126_200_000,
      }),
    );
  });
});

describe('sports rules', () => {
  const game = (id: string, status: SportEvent['status'], start: string): SportEvent => ({
    sport: 'basketball',
    league: 'nba',
    event_id: id,
    home: 'H',
    away: 'A',
    home_score: 1,
    away_score: 2,
    status,
    start_time: start,
    detail: '',
  });
  const games = [
    game('1', 'final', '2026-11-20T00:00:00Z'),
    game('2', 'in_progress', '2026-11-20T02:00:00Z'),
    game('3', 'scheduled', '2026-11-20T04:00:00Z'),
    game('4', 'final', '2026-11-20T01:00:00Z'),
  ];

  it('match_result: finals only; live_score: in progress only; box_score: any played game', () => {
    expect(gamesFor('match_result', games).map((g) => g.event_id)).toEqual(['4', '1']);
    expect(gamesFor('live_score', games).map((g) => g.event_id)).toEqual(['2']);
    expect(gamesFor('box_score', games).map((g) => g.event_id)).toEqual(['2', '4', '1']);
  });

  it("maps ESPN's state, and scores tennis in completed sets", () => {
    const s = (state: 'pre' | 'in' | 'post', completed: boolean) => ({
      type: { state, completed, detail: '' },
    });
    expect(espnStatus(s('pre', false))).toBe('scheduled');
    expect(espnStatus(s('in', false))).toBe('in_progress');
    expect(espnStatus(s('post', true))).toBe('final');
    expect(espnStatus(s('post', false))).toBe('scheduled');
    const v = (...xs: number[]) => xs.map((value) => ({ value }));
    expect(setsWon(v(7, 4, 3), v(5, 6, 6))).toBe(1);
    expect(setsWon(v(5, 6, 6), v(7, 4, 3))).toBe(2);
    expect(setsWon(v(6, 4), v(3, 5))).toBe(1);
  });
});

describe('time zones and CSV', () => {
  it('converts New York wall time to UTC across daylight saving time', () => {
    expect(newYorkToUtc('2024-11-14T08:12:00.000')).toBe('2024-11-14T13:12:00.000Z');
    expect(newYorkToUtc('2024-07-14T08:12:00')).toBe('2024-07-14T12:12:00.000Z');
    expect(new Date(newYorkDayStart(Date.parse('2024-11-15T03:00:00Z'))).toISOString()).toBe(
      '2024-11-14T05:00:00.000Z',
    );
    // The changes of 2026: 02:00 EST becomes 03:00 EDT on 8 March, 02:00 EDT 01:00 EST on 1 November.
    expect(newYorkToUtc('2026-03-08T01:59:00')).toBe('2026-03-08T06:59:00.000Z');
    expect(newYorkToUtc('2026-03-08T03:00:00')).toBe('2026-03-08T07:00:00.000Z');
    expect(newYorkToUtc('2026-11-01T00:30:00')).toBe('2026-11-01T04:30:00.000Z');
    expect(newYorkToUtc('2026-11-01T02:30:00')).toBe('2026-11-01T07:30:00.000Z');
  });

  it("gives New York's offset as ICU does from 2007 to 2040, minute by minute around each change", () => {
    const icu = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      timeZoneName: 'longOffset',
    });
    const icuOffsetMs = (instant: number) => {
      const name = icu.formatToParts(new Date(instant)).find((p) => p.type === 'timeZoneName')!.value;
      const [, sign, h, m] = /GMT([+-])(\d{2}):(\d{2})/.exec(name)!;
      return (sign === '-' ? -1 : 1) * (Number(h) * 60 + Number(m)) * 60_000;
    };
    const differences: string[] = [];
    const check = (instant: number) => {
      if (newYorkOffsetMs(instant) !== icuOffsetMs(instant))
        differences.push(new Date(instant).toISOString());
    };
    // Every third hour, and minute by minute (with the millisecond before) across each change.
    const STEP = 3 * 3_600_000;
    let before = icuOffsetMs(Date.UTC(2007, 0, 1));
    for (let t = Date.UTC(2007, 0, 1); t < Date.UTC(2041, 0, 1); t += STEP) {
      const offset = icuOffsetMs(t);
      if (newYorkOffsetMs(t) !== offset) differences.push(new Date(t).toISOString());
      if (offset !== before)
        for (let ms = t - STEP; ms < t; ms += 60_000) {
          check(ms);
          check(ms + 59_999);
        }
      before = offset;
    }
    expect(differences).toEqual([]);
  });

  it('parses quoted fields with commas and quotes', () => {
    expect(parseCsv('a,"b, ""c""",d\r\n1,2,3\n')).toEqual([
      ['a', 'b, "c"', 'd'],
      ['1', '2', '3'],
    ]);
  });

  it('keys each row by the trimmed header: a missing cell empty, a cell past the header dropped', () => {
    expect(csvRecords(' a , b\n1, 2 ,x\n3\n')).toEqual([
      { a: '1', b: '2' },
      { a: '3', b: '' },
    ]);
  });
});
