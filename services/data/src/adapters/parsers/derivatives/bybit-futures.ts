import type { IngestBatchInput } from '@meridian/contracts';

/** One linear contract of Bybit v5 GET /v5/market/tickers?category=linear (numbers as strings). */
interface BybitLinearTicker {
  symbol: string;
  markPrice: string;
  indexPrice: string;
  fundingRate: string;
  nextFundingTime: string;
  /** Hours between fundings; newer answers only (a contract may fund every 1, 2, 4 or 8 h). */
  fundingIntervalHour?: string;
}

const number = (v: string | undefined): number | null =>
  v === undefined || v.trim() === '' || !Number.isFinite(Number(v)) ? null : Number(v);

/**
 * The `result.list` of Bybit's linear tickers at the answer's `time` (a ticker has no time of its own).
 * Kept: the USDT perpetual of each of `bases` (BTCUSDT is BTC-USDT; BTCPERP, the USDC perpetual, and
 * dated contracts are not read); funding where the rate is given, marks where positive.
 */
export function bybitLinearBatches(
  list: unknown[],
  time: number,
  bases: readonly string[],
): IngestBatchInput[] {
  const wanted = new Set(bases.map((b) => `${b}USDT`));
  const ts = new Date(time).toISOString();
  return (list as BybitLinearTicker[])
    .filter((t) => wanted.has(t.symbol))
    .flatMap((t): IngestBatchInput[] => {
      const symbol = `${t.symbol.replace(/USDT$/, '')}-USDT`;
      const rate = number(t.fundingRate);
      const mark = number(t.markPrice);
      const index = number(t.indexPrice);
      const interval = number(t.fundingIntervalHour);
      return [
        ...(rate === null
          ? []
          : [
              {
                kind: 'funding' as const,
                source: 'bybit_futures',
                symbol,
                rows: [
                  { ts, funding_rate: rate, interval_hours: interval && interval > 0 ? interval : null },
                ],
              },
            ]),
        ...(mark === null || mark <= 0
          ? []
          : [
              {
                kind: 'mark_prices' as const,
                source: 'bybit_futures',
                symbol,
                rows: [{ ts, mark_price: mark, index_price: index && index > 0 ? index : null }],
              },
            ]),
      ];
    });
}
