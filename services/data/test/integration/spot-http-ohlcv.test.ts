import { MAX_RESPONSE_TOKENS } from '@meridian/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import type { MigratedDatabase } from '../support/db.js';
import { bruteForce, MINUTE } from '../support/recorded.js';
import { depegService, depegWindow, HOUR, NOW_MINUTE, roundRows, type Row } from '../support/depeg.js';

/**
 * crypto/spot/ohlcv over HTTP on the recorded USDC depeg shifted to now: roll-ups equal to brute force,
 * partial buckets marked, gaps kept, pages and token budgets. The reference price, the 24 h metrics,
 * trades and refusals: spot-http.test.ts.
 */
describe('crypto/spot ohlcv over HTTP, on the recorded USDC depeg shifted to now', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let headers: Record<string, string>;
  const window = depegWindow();
  const get = (path: string) => request(app).get(path).set(headers);

  beforeAll(async () => {
    ({ db, app, headers } = await depegService('data_spot_ohlcv', window));
  });
  afterAll(() => db.drop());

  it.each(['1m', '5m', '15m', '30m', '1h', '4h', '1d'])(
    'ohlcv %s per venue equals a brute-force aggregation of the recorded 1m rows, gaps included',
    async (interval) => {
      const ms = {
        '1m': MINUTE,
        '5m': 5 * MINUTE,
        '15m': 15 * MINUTE,
        '30m': 30 * MINUTE,
        '1h': HOUR,
        '4h': 4 * HOUR,
        '1d': 24 * HOUR,
      }[interval]!;
      for (const { market, bars } of window.filter((w) => w.market.symbol !== 'BTC-USDT')) {
        const res = await get(
          `/v1/data/crypto/spot/ohlcv?entity=${market.symbol}&source=${market.venue}&interval=${interval}`,
        );
        expect(res.status).toBe(200);
        const rows = res.body.data as Row[];
        const expected = bruteForce(bars, ms).slice(-rows.length);
        expect(rows.length).toBeGreaterThan(0);
        expect(roundRows(rows)).toEqual(roundRows(expected as Row[]));
      }
    },
  );

  it.each([
    ['1h', HOUR],
    ['4h', 4 * HOUR],
    ['1d', 24 * HOUR],
  ])(
    'marks a %s bar the stored data covers only in part, per venue and combined, with the covered span',
    async (interval, ms) => {
      const firstOf = (w: typeof window) => Math.min(...w.map((s) => s.bars[0]!.ts));
      for (const [query, first] of [
        ['entity=BTC-USD&source=binanceus', firstOf(window.filter((w) => w.market.symbol === 'BTC-USD'))],
        ['entity=BTC-USD', firstOf(window)],
      ] as const) {
        const before = Date.now();
        const res = await get(`/v1/data/crypto/spot/ohlcv?${query}&interval=${interval}`);
        const after = Date.now();
        expect(res.status).toBe(200);
        expect(res.body.provenance.method).toMatch(/partial: true with covered_from and covered_to/);
        const rows = res.body.data as Row[];
        // The page reaches back to the first stored bar: the first bucket starts before it unless aligned.
        expect(Date.parse(rows[0]!.ts as string)).toBeLessThanOrEqual(first);
        for (const row of rows) {
          const ts = Date.parse(row.ts as string);
          const label = `${query} ${interval} ${row.ts as string}`;
          if (ts >= first && ts + ms <= Math.min(NOW_MINUTE + MINUTE, before)) {
            expect([label, row.partial]).toEqual([label, undefined]);
            continue;
          }
          expect([label, row.partial]).toEqual([label, true]);
          expect(row.covered_from).toBe(new Date(Math.max(ts, first)).toISOString());
          if (ts + ms <= Math.min(NOW_MINUTE + MINUTE, before))
            expect(row.covered_to).toBe(new Date(ts + ms).toISOString());
          else {
            // The bucket in progress: covered to the newest bar's close (the current minute's: capped at now).
            const newestClose = NOW_MINUTE + MINUTE;
            expect(Date.parse(row.covered_to as string)).toBeGreaterThanOrEqual(
              Math.min(newestClose, before),
            );
            expect(Date.parse(row.covered_to as string)).toBeLessThanOrEqual(Math.min(newestClose, after));
          }
        }
        expect(rows[rows.length - 1]!.partial).toBe(true);
        expect(rows[0]!.partial).toBe(first % ms === 0 ? undefined : true);
        expect(rows.filter((r) => r.partial).length).toBeLessThanOrEqual(2);
      }
    },
  );

  it('marks no 1m bar, and names the marks as columns of a roll-up only', async () => {
    const minute = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=1m');
    expect((minute.body.data as Row[]).some((r) => 'partial' in r)).toBe(false);
    const table = await get(
      '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1d&fields=ts,close,partial,covered_to&format=table',
    );
    expect(table.status).toBe(200);
    expect(table.body.data.columns).toEqual(['ts', 'close', 'partial', 'covered_to']);
    const newest = table.body.data.rows[table.body.data.rows.length - 1];
    expect(newest[2]).toBe(true);
    const refused = await get(
      '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=1m&fields=ts,partial',
    );
    expect(refused.status).toBe(400);
  });

  it('kraken has gaps and they stay gaps', async () => {
    const res = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USDC&source=kraken&interval=1m');
    const times = (res.body.data as Row[]).map((r) => Date.parse(r.ts as string));
    const steps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.max(...steps)).toBeGreaterThan(MINUTE);
  });

  it('pages back with signed cursors, fields, table format and max_response_tokens', async () => {
    const first = await get('/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=1m');
    expect(first.body.meta).toMatchObject({ has_more: true, truncated: false, returned: 500 });
    const second = await get(
      `/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=1m&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`,
    );
    expect(second.status).toBe(200);
    const a = first.body.data as Row[];
    const b = second.body.data as Row[];
    expect(Date.parse(b[b.length - 1]!.ts as string) + MINUTE).toBe(Date.parse(a[0]!.ts as string));

    const small = await get(
      '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=1m&max_response_tokens=1000&fields=ts,close&format=table',
    );
    expect(small.body.data.columns).toEqual(['ts', 'close']);
    expect(small.body.meta.truncated).toBe(true);
    expect(small.body.meta.hint).toMatch(/max_response_tokens/);
    expect(small.body.meta.returned).toBe(small.body.data.rows.length);
    expect(small.body.data.rows[small.body.data.rows.length - 1]).toEqual([
      a[a.length - 1]!.ts,
      a[a.length - 1]!.close,
    ]);
    const rest = await get(
      `/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=1m&fields=ts,close&format=table&cursor=${encodeURIComponent(small.body.meta.next_cursor)}`,
    );
    const restRows = rest.body.data.rows as [string, number][];
    expect(Date.parse(restRows[restRows.length - 1]![0]) + MINUTE).toBe(
      Date.parse(small.body.data.rows[0][0]),
    );
  });

  it('max_response_tokens bounds the whole answer: at most 4 characters per token, or one row said so', async () => {
    const base = '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=1m';
    for (const path of [
      base,
      `${base}&format=table`,
      `${base}&fields=ts,close`,
      '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=5m',
    ])
      for (const budget of [MAX_RESPONSE_TOKENS.min, 1100, 1500, 3000, 10_000]) {
        const res = await get(`${path}&max_response_tokens=${budget}`);
        expect(res.status).toBe(200);
        const { meta } = res.body;
        // Honoured from the documented minimum: never the one row that alone exceeds it.
        const fits = res.text.length <= budget * 4;
        expect({ path, budget, fits }).toEqual({ path, budget, fits: true });
        expect(meta.returned).toBeGreaterThanOrEqual(1);
        if (fits && meta.truncated) {
          // Not needlessly short: the next older row would not have fitted (a few characters of slack
          // for the hint's and the cursor's own length).
          const whole = (await get(path)).body.data;
          const rows = whole.rows ?? whole;
          const older = rows[rows.length - meta.returned - 1];
          expect(res.text.length + JSON.stringify(older).length + 1).toBeGreaterThan(budget * 4 - 8);
        }
      }
  });

  it('OHLCV as_of is the close of the newest native bar, never the end of the bucket in progress', async () => {
    const bars = window.find((w) => w.market.venue === 'binanceus' && w.market.symbol === 'BTC-USD')!.bars;
    const newestClose = bars[bars.length - 1]!.ts + MINUTE;
    for (const interval of ['1m', '5m', '1h', '4h', '1d']) {
      const before = Date.now();
      const res = await get(
        `/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=binanceus&interval=${interval}`,
      );
      const after = Date.now();
      expect(res.status).toBe(200);
      const asOf = Date.parse(res.body.meta.as_of);
      // The newest recorded bar opens at the current minute: its close is capped at the request's now.
      expect(asOf).toBeLessThanOrEqual(Math.min(newestClose, after));
      expect(asOf).toBeGreaterThanOrEqual(Math.min(newestClose, before));
      expect(res.body.meta.staleness_ms).toBeLessThanOrEqual(after - asOf);
    }
  });
});
