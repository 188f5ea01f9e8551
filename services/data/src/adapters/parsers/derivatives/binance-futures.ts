import type { IngestBatchInput } from '@meridian/contracts';
import { recordedTime, type ReplayClock } from '../../../domain/replay-clock.js';

/** Binance USD-M futures GET /fapi/v1/premiumIndex for one symbol. */
interface BinancePremiumIndex {
  symbol: string;
  markPrice: string;
  indexPrice: string;
  lastFundingRate: string;
  time: number;
}

/** Binance quotes its USD-M perpetuals in USDT: BTCUSDT is BTC-USDT, funded every 8 h. */
function premiumIndexBatches(p: BinancePremiumIndex, clock: ReplayClock): IngestBatchInput[] {
  const base = p.symbol.replace(/USDT$/, '');
  const symbol = `${base}-USDT`;
  const ts = clock(p.time);
  return [
    {
      kind: 'funding',
      source: 'binance_futures',
      symbol,
      rows: [{ ts, funding_rate: Number(p.lastFundingRate), interval_hours: 8 }],
    },
    {
      kind: 'mark_prices',
      source: 'binance_futures',
      symbol,
      rows: [{ ts, mark_price: Number(p.markPrice), index_price: Number(p.indexPrice) }],
    },
  ];
}

/**
 * The list GET /fapi/v1/premiumIndex answers without a symbol: every USD-M contract. Kept: the USDT perpetual of each
 * of `bases` (BTCUSDT is BTC-USDT; a dated contract BTCUSDT_250328 is not a perpetual), with a mark.
 */
export function binancePerpetualBatches(all: unknown[], bases: readonly string[]): IngestBatchInput[] {
  const wanted = new Set(bases.map((b) => `${b}USDT`));
  return (all as BinancePremiumIndex[])
    .filter((p) => wanted.has(p.symbol) && Number(p.markPrice) > 0)
    .flatMap((p) => premiumIndexBatches(p, recordedTime));
}
