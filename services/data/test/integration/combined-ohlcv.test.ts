import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { callerHeaders } from '@meridian/http-kit/testing';
import type { RequestListener } from 'node:http';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testApp, testDeps } from '../support/app.js';
import { bruteForce, MINUTE, recordedWindow } from '../support/recorded.js';
import { catalogFor, type IngestBatch } from '@meridian/contracts';
import { ingest as ingestIn } from '../../src/flows/ingest.js';
import type { Bar } from '../../src/domain/series/bar.js';
import type { Market } from '../../src/domain/spot/market.js';

/** Ingestion bound by the replay's catalogue (the recorded BTC markets), as INGEST_MODE=off and replay are. */
const ingest = (db: Parameters<typeof ingestIn>[0], batch: IngestBatch) =>
  ingestIn(db, batch, catalogFor('replay'));

const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const INTERVALS = {
  '1m': MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': HOUR,
  '4h': 4 * HOUR,
  '1d': DAY,
};

/** Three whole UTC days of the recording around the USDC depeg: 2023-03-11 is its worst day. */
const FROM = Date.parse('2023-03-10T00:00:00Z');
const TO = Date.parse('2023-03-13T00:00:00Z');
/** Every venue down at once (simulated): a gap in the combined bars too. */
const OUTAGE = { from: Date.parse('2023-03-12T03:00:00Z'), to: Date.parse('2023-03-12T05:30:00Z') };
/** Only the USD book down (simulated): the USDC and USDT bars lose their rate once the last one is 5 min old. */
const NO_RATE = { from: Date.parse('2023-03-11T20:00:00Z'), to: Date.parse('2023-03-11T20:30:00Z') };

type Series = { market: Market; bars: Bar[] };
type Row = Record<string, number | string | null>;

function inRange(t: number, r: { from: number; to: number }) {
  return t >= r.from && t < r.to;
}

function recorded(): Series[] {
  return recordedWindow(FROM, TO - 1, 0).map(({ market, bars }) => ({
    market: { ...market, base: 'BTC', quote: market.symbol.split('-')[1]! },
    bars: bars.filter(
      (b) => !inRange(b.ts, OUTAGE) && !(market.symbol === 'BTC-USD' && inRange(b.ts, NO_RATE)),
    ),
  }));
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The documented combined 1m bar, minute by minute, written apart from the service: at each minute, a
 * quote currency's USD rate is the median over venues of that venue's BTC-USD close over its BTC-QUOTE
 * close when both bars traded in that minute, else the latest such rate at most 5 minutes old; each
 * market's bar converted at its own minute's rate (no rate: left out); median OHLC, volumes summed.
 */
function combinedMinutes(data: Series[]) {
  const bar = new Map(
    data.map((s) => [`${s.market.venue}:${s.market.symbol}`, new Map(s.bars.map((b) => [b.ts, b]))]),
  );
  const minutes = [...new Set(data.flatMap((s) => s.bars.map((b) => b.ts)))].sort((a, b) => a - b);
  const sampleAt = (quote: string, t: number) => {
    const samples = data.flatMap((s) => {
      if (s.market.quote !== quote) return [];
      const q = bar.get(`${s.market.venue}:${s.market.symbol}`)!.get(t);
      const usd = bar.get(`${s.market.venue}:BTC-USD`)?.get(t);
      return q && usd && q.volume > 0 && usd.volume > 0 ? [usd.close / q.close] : [];
    });
    return samples.length ? median(samples) : undefined;
  };
  const rate = (quote: string, t: number) => {
    if (quote === 'USD') return 1;
    for (let s = t; s >= t - 5 * MINUTE; s -= MINUTE) {
      const r = sampleAt(quote, s);
      if (r !== undefined) return r;
    }
    return undefined;
  };
  const leftOut = new Map<string, number>();
  const bars = minutes.flatMap((t) => {
    const usd = data.flatMap((s) => {
      const b = bar.get(`${s.market.venue}:${s.market.symbol}`)!.get(t);
      if (!b) return [];
      const r = rate(s.market.quote, t);
      if (r === undefined) {
        leftOut.set(
          `${s.market.venue}:${s.market.symbol}`,
          (leftOut.get(`${s.market.venue}:${s.market.symbol}`) ?? 0) + 1,
        );
        return [];
      }
      return [{ ...b, open: b.open * r, high: b.high * r, low: b.low * r, close: b.close * r }];
    });
    if (usd.length === 0) return [];
    const counts = usd.filter((b) => b.trade_count !== null);
    return [
      {
        ts: t,
        open: median(usd.map((b) => b.open)),
        high: median(usd.map((b) => b.high)),
        low: median(usd.map((b) => b.low)),
        close: median(usd.map((b) => b.close)),
        volume: usd.reduce((n, b) => n + b.volume, 0),
        trade_count: counts.length ? counts.reduce((n, b) => n + b.trade_count!, 0) : null,
      },
    ];
  });
  return { bars, leftOut };
}

/**
 * The actual rows with every number within tolerance of the expected one replaced by it, so that toEqual
 * shows only real differences: prices to 1e-12 relative (a conversion is a product, in another order),
 * volumes to 1e-9 (float sums in another order); the rest exactly.
 */
function within(actual: Row[], expected: Row[]): Row[] {
  const tolerance: Record<string, number> = {
    open: 1e-12,
    high: 1e-12,
    low: 1e-12,
    close: 1e-12,
    volume: 1e-9,
  };
  return actual.map((row, i) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => {
        const e = expected[i]?.[k];
        const close =
          tolerance[k] !== undefined &&
          typeof v === 'number' &&
          typeof e === 'number' &&
          Math.abs(v - e) <= tolerance[k]! * Math.abs(e);
        return [k, close ? e : v];
      }),
    ),
  );
}

/** A deterministic shuffle (xorshift), so that every run ingests in the same scrambled order. */
function shuffled<T>(items: T[], seed: number): T[] {
  let x = seed;
  const rnd = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 4294967296);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const batch = (s: Series, bars: Bar[]) => ({
  kind: 'candles' as const,
  source: s.market.venue,
  symbol: s.market.symbol,
  interval: '1m' as const,
  rows: bars.map((b) => ({ ...b, ts: new Date(b.ts).toISOString() })),
});

describe('combined OHLCV over the recorded USDC depeg: every interval is the exact roll-up of the combined 1m bars', () => {
  let db: MigratedDatabase;
  let app: RequestListener;
  let deps: ReturnType<typeof testDeps>;
  let headers: Record<string, string>;
  const data = recorded();

  const all = async (interval: string): Promise<{ rows: Row[]; excluded: Row[]; method: string }> => {
    const rows: Row[] = [];
    const excluded: Row[] = [];
    const methods = new Set<string>();
    let cursor: string | undefined;
    do {
      const res = await request(app)
        .get(
          `/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=${interval}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        )
        .set(headers);
      expect(res.status).toBe(200);
      rows.unshift(...(res.body.data as Row[]));
      excluded.push(...(res.body.provenance.excluded as Row[]));
      methods.add(res.body.provenance.method as string);
      cursor = res.body.meta.next_cursor ?? undefined;
    } while (cursor);
    return { rows, excluded, method: [...methods].join('\n') };
  };

  const expectEqualToBruteForce = async (series: Series[]) => {
    const minutes = combinedMinutes(series);
    for (const [interval, ms] of Object.entries(INTERVALS)) {
      const { rows } = await all(interval);
      const expected = bruteForce(minutes.bars, ms) as Row[];
      expect({ interval, rows: within(rows, expected) }).toEqual({ interval, rows: expected });
    }
    return minutes;
  };

  beforeAll(async () => {
    db = await migratedDatabase('data_combined_ohlcv');
    deps = testDeps(db);
    app = testApp(deps);
    headers = await callerHeaders({ plan: 'ultra', auth: 'api_key', account_id: 'acct_1', key_id: 'key_1' });
    // Late and out of order, as connectors and imports deliver: chunks of every market scrambled, two
    // markets' chunks at once, and the USD book (the rate source) of the depeg day only after the others.
    const chunks = data.flatMap((s) =>
      Array.from({ length: Math.ceil(s.bars.length / 97) }, (_, i) => ({
        s,
        bars: s.bars.slice(i * 97, (i + 1) * 97),
      })),
    );
    const usdOfDepegDay = (c: (typeof chunks)[number]) =>
      c.s.market.symbol === 'BTC-USD' &&
      c.bars.some(
        (b) => b.ts >= Date.parse('2023-03-11T00:00:00Z') && b.ts < Date.parse('2023-03-12T00:00:00Z'),
      );
    const order = [
      ...shuffled(
        chunks.filter((c) => !usdOfDepegDay(c)),
        7,
      ),
      ...shuffled(chunks.filter(usdOfDepegDay), 11),
    ];
    for (let i = 0; i < order.length; i += 2)
      await Promise.all(order.slice(i, i + 2).map((c) => ingest(db.db, batch(c.s, c.bars))));
  });
  afterAll(() => db.drop());

  it('the recordings hold the depeg: USDC at about 0.87 USD on 2023-03-11, and kraken gaps', () => {
    const minutes = combinedMinutes(data);
    expect(minutes.bars.length).toBeGreaterThan(3 * 1440 - 200);
    const usd = new Map(data[0]!.bars.map((b) => [b.ts, b]));
    const usdc = data.find((s) => s.market.venue === 'binanceus' && s.market.symbol === 'BTC-USDC')!.bars;
    const rates = usdc.flatMap((b) => {
      const u = usd.get(b.ts);
      return u &&
        u.volume > 0 &&
        b.volume > 0 &&
        b.ts >= Date.parse('2023-03-11T00:00:00Z') &&
        b.ts < Date.parse('2023-03-12T00:00:00Z')
        ? [u.close / b.close]
        : [];
    });
    expect(Math.min(...rates)).toBeLessThan(0.9);
    expect(Math.max(...rates)).toBeGreaterThan(0.99);
    const kraken = data.find((s) => s.market.venue === 'kraken')!.bars.map((b) => b.ts);
    const steps = kraken.slice(1).map((t, k) => t - kraken[k]!);
    expect(steps.filter((step) => step > MINUTE).length).toBeGreaterThan(100);
  });

  it('1m to 1d equal the brute-force combination minute by minute, then the roll-up; gaps stay gaps', async () => {
    await expectEqualToBruteForce(data);
    const hours = (await all('1h')).rows.map((r) => Date.parse(r.ts as string));
    expect(hours).not.toContain(Date.parse('2023-03-12T04:00:00Z'));
    expect(hours).toContain(Date.parse('2023-03-12T05:00:00Z'));
  });

  it('bars without a USD rate at their minute are left out and named, counted as brute force counts them', async () => {
    const { leftOut } = combinedMinutes(data);
    expect(leftOut.get('binanceus:BTC-USDC')).toBeGreaterThan(20);
    for (const interval of ['5m', '1h', '4h', '1d']) {
      const { excluded, method } = await all(interval);
      const named = new Map<string, number>();
      for (const e of excluded) {
        const label = `${e.venue}:${e.symbol}`;
        named.set(label, (named.get(label) ?? 0) + Number(/^(\d+) of/.exec(e.reason as string)![1]));
      }
      expect({ interval, named: Object.fromEntries(named) }).toEqual({
        interval,
        named: Object.fromEntries(leftOut),
      });
      expect(method).toMatch(/rolled up exactly/);
    }
  });

  it('a replayed batch changes nothing; a corrected USD bar reprices the other venues of its minutes', async () => {
    const snapshot = () =>
      db.db.selectFrom('combined_rollups').selectAll().orderBy('bucket').orderBy('ts').execute();
    const before = await snapshot();
    const usd = data.find((s) => s.market.symbol === 'BTC-USD')!;
    const summary = await ingest(db.db, batch(usd, usd.bars.slice(0, 500)));
    expect(summary).toMatchObject({ ok: true, value: { inserted: 0, updated: 0 } });
    expect(await snapshot()).toEqual(before);

    const at = Date.parse('2023-03-11T12:00:00Z');
    const corrected = data.map((s) =>
      s === usd
        ? {
            ...s,
            bars: s.bars.map((b) =>
              b.ts === at ? { ...b, close: b.close * 1.02, high: Math.max(b.high, b.close * 1.02) } : b,
            ),
          }
        : s,
    );
    const fixed = corrected.find((s) => s.market.symbol === 'BTC-USD')!.bars.find((b) => b.ts === at)!;
    // Through the process's ingestor, as a connector or an import writes: its answer cache is told,
    // so the pages read next are recomputed (a write behind its back is bounded by DATA_ANSWER_CACHE_MS).
    expect(await deps.ingestor.ingest(batch(usd, [fixed]))).toMatchObject({
      ok: true,
      value: { updated: 1 },
    });
    await expectEqualToBruteForce(corrected);
    expect(await snapshot()).not.toEqual(before);
  });
});
