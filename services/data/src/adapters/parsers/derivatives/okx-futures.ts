import type { IngestBatchInput } from '@meridian/contracts';

/** One contract of OKX GET /api/v5/public/mark-price?instType=SWAP (numbers and times as strings). */
interface OkxMarkPrice {
  instId: string;
  markPx: string;
  ts: string;
}

/** The one row of OKX GET /api/v5/public/funding-rate?instId=... */
interface OkxFundingRate {
  instId: string;
  fundingRate: string;
  /** The settlement this rate is for, and the one after: their distance is the funding interval. */
  fundingTime: string;
  nextFundingTime: string;
  ts?: string;
}

const HOUR_MS = 3_600_000;

/** OKX names the USDT perpetual of BTC `BTC-USDT-SWAP`; stored as BTC-USDT. */
export const okxSwapOf = (base: string) => `${base}-USDT-SWAP`;
const symbolOf = (instId: string) => instId.replace(/-SWAP$/, '');

/** Marks of the USDT perpetuals of `bases` in the mark-price list (an inverse BTC-USD-SWAP is not read). */
export function okxMarkBatches(data: unknown[], bases: readonly string[]): IngestBatchInput[] {
  const wanted = new Set(bases.map(okxSwapOf));
  return (data as OkxMarkPrice[])
    .filter((m) => wanted.has(m.instId) && Number(m.markPx) > 0)
    .map((m) => ({
      kind: 'mark_prices' as const,
      source: 'okx_futures',
      symbol: symbolOf(m.instId),
      rows: [{ ts: new Date(Number(m.ts)).toISOString(), mark_price: Number(m.markPx) }],
    }));
}

/**
 * A funding-rate answer's row at its `ts` (older answers have none: `at`, the poll's time), the
 * interval from fundingTime to nextFundingTime (OKX funds some contracts every 4 h or 1 h).
 */
export function okxFundingBatch(row: unknown, at: Date): IngestBatchInput | undefined {
  const f = row as OkxFundingRate;
  const rate = Number(f.fundingRate);
  if (typeof f.instId !== 'string' || f.fundingRate === '' || !Number.isFinite(rate)) return undefined;
  const interval = (Number(f.nextFundingTime) - Number(f.fundingTime)) / HOUR_MS;
  const ts = f.ts ? new Date(Number(f.ts)) : at;
  return {
    kind: 'funding',
    source: 'okx_futures',
    symbol: symbolOf(f.instId),
    rows: [
      {
        ts: ts.toISOString(),
        funding_rate: rate,
        interval_hours: Number.isFinite(interval) && interval > 0 ? interval : null,
      },
    ],
  };
}
