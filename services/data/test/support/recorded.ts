import { catalogFor } from '@meridian/contracts';
import type { Bar } from '../../src/domain/series/bar.js';
import { ingest } from '../../src/flows/ingest.js';
import { loadRecordedBars, RECORDED_MARKETS } from '../../src/adapters/parsers/spot/recorded-market.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';

export const MINUTE = 60_000;

/** The recorded bars of every shipped market in [from, to] (recorded time), shifted by `shift` ms. */
export function recordedWindow(from: number, to: number, shift: number) {
  return RECORDED_MARKETS.map((m) => ({
    market: m,
    bars: loadRecordedBars(m)
      .filter((b) => b.ts >= from && b.ts <= to)
      .map((b) => ({ ...b, ts: b.ts + shift })),
  }));
}

export async function ingestBars(db: Kysely<Database>, venue: string, symbol: string, bars: Bar[]) {
  await ingest(
    db,
    {
      kind: 'candles',
      source: venue,
      symbol,
      interval: '1m',
      rows: bars.map((b) => ({ ...b, ts: new Date(b.ts).toISOString() })),
    },
    catalogFor('replay'),
  );
}

/** Naive roll-up for the tests: group by floor(ts / interval), written independently of the service. */
export function bruteForce(bars: Bar[], intervalMs: number) {
  const groups = new Map<number, Bar[]>();
  for (const b of bars) {
    const k = Math.floor(b.ts / intervalMs) * intervalMs;
    groups.set(k, [...(groups.get(k) ?? []), b]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([ts, g]) => {
      const sorted = [...g].sort((a, b) => a.ts - b.ts);
      const counts = sorted.filter((b) => b.trade_count !== null);
      return {
        ts: new Date(ts).toISOString(),
        open: sorted[0]!.open,
        high: Math.max(...sorted.map((b) => b.high)),
        low: Math.min(...sorted.map((b) => b.low)),
        close: sorted[sorted.length - 1]!.close,
        volume: sorted.reduce((s, b) => s + b.volume, 0),
        trade_count: counts.length ? counts.reduce((s, b) => s + b.trade_count!, 0) : null,
      };
    });
}
