import type { IngestBatchInput } from '@meridian/contracts';
import type { ReplayClock } from '../../domain/replay-clock.js';

/** Binance USD-M futures GET /fapi/v1/premiumIndex for one symbol. */
interface BinancePremiumIndex {
  symbol: string;
  markPrice: string;
  indexPrice: string;
  lastFundingRate: string;
  time: number;
}

/** Binance quotes its USD-M perpetuals in USDT: BTCUSDT is BTC-USDT, funded every 8 h. */
export function parseBinancePremiumIndex(text: string, clock: ReplayClock): IngestBatchInput[] {
  const p = JSON.parse(text) as BinancePremiumIndex;
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
