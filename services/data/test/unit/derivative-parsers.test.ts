import { describe, expect, it } from '@jest/globals';
import { ingestBatchSchema, type IngestBatchInput } from '@meridian/contracts';
import { binancePerpetualBatches } from '../../src/adapters/parsers/derivatives/binance-futures.js';
import { bybitLinearBatches } from '../../src/adapters/parsers/derivatives/bybit-futures.js';
import { okxFundingBatch, okxMarkBatches } from '../../src/adapters/parsers/derivatives/okx-futures.js';
import {
  deribitSummaryMarks,
  parseDeribitOptionName,
  type DeribitBookSummary,
} from '../../src/adapters/parsers/derivatives/deribit.js';
import { recording } from '../support/recordings.js';

/** A hand-written sample answer of the live connectors (recordings/live/, see the README there). */
const sample = (file: string) => JSON.parse(recording(`live/${file}`)) as unknown;

const symbols = (batches: IngestBatchInput[], kind: string) =>
  batches.filter((b) => b.kind === kind).map((b) => ('symbol' in b ? b.symbol : ''));

describe('Deribit option names', () => {
  it('reads underlying, 08:00 UTC expiry, strike and call/put', () => {
    expect(parseDeribitOptionName('BTC-27DEC24-100000-C')).toEqual({
      underlying: 'BTC',
      expiry: '2024-12-27T08:00:00.000Z',
      strike: 100000,
      option_type: 'call',
    });
    expect(parseDeribitOptionName('ETH-5JAN26-3250-P')).toMatchObject({
      expiry: '2026-01-05T08:00:00.000Z',
      option_type: 'put',
    });
    expect(parseDeribitOptionName('XRP_USDC-27DEC24-2d5-C')).toMatchObject({
      underlying: 'XRP_USDC',
      strike: 2.5,
    });
  });

  it.each(['BTC-PERPETUAL', 'BTC-27DEC24', 'BTC-31FEB25-100-C', 'BTC-27XYZ24-100-C', 'BTC-27DEC24-0-P'])(
    'is undefined for %s (not an option)',
    (name) => expect(parseDeribitOptionName(name)).toBeUndefined(),
  );
});

describe('Deribit book summary', () => {
  const { result } = sample('deribit/book_summary_ETH_option_2025-11-25.json') as {
    result: DeribitBookSummary[];
  };

  it('gives marks in USD (mark in ETH x the forward), IV as a fraction, greeks where known', () => {
    const rows = deribitSummaryMarks(result, (name) =>
      name === 'ETH-19DEC25-3000-C' ? { delta: 0.52, gamma: 0.0008, vega: 3.1, theta: -2.9 } : undefined,
    );
    expect(rows).toHaveLength(12);
    const call = rows.find((r) => r.instrument === 'ETH-19DEC25-3000-C')!;
    const raw = result.find((r) => r.instrument_name === 'ETH-19DEC25-3000-C')!;
    expect(call).toMatchObject({
      underlying: 'ETH',
      expiry: '2025-12-19T08:00:00.000Z',
      strike: 3000,
      option_type: 'call',
      ts: new Date(raw.creation_timestamp).toISOString(),
      underlying_px: 3005.25,
      delta: 0.52,
      theta: -2.9,
    });
    expect(call.mark_price_usd).toBeCloseTo(raw.mark_price! * 3005.25, 8);
    expect(call.mark_iv).toBeCloseTo(raw.mark_iv! / 100, 10);
    expect(rows.find((r) => r.instrument === 'ETH-19DEC25-3000-P')).toMatchObject({
      delta: null,
      vega: null,
    });
    ingestBatchSchema.parse({ kind: 'option_marks', source: 'deribit', rows });
  });

  it('leaves out what it cannot price: no mark, no forward, not an option', () => {
    const base = result[0]!;
    const rows = deribitSummaryMarks(
      [
        { ...base, mark_price: null },
        { ...base, underlying_price: null },
        { ...base, instrument_name: 'ETH-PERPETUAL' },
        { ...base, open_interest: null },
      ],
      () => undefined,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.open_interest).toBe(0);
  });
});

describe('Binance USD-M premiumIndex (all symbols)', () => {
  it('keeps the USDT perpetuals of the live bases with a mark, as BASE-USDT', () => {
    const batches = binancePerpetualBatches(
      sample('binance_futures/premium_index_all_2025-11-25.json') as unknown[],
      ['BTC', 'ETH', 'SOL', 'FIL'],
    );
    // BTCUSDT_251226 is dated, 1000PEPEUSDT and ETHUSDC not asked for, FILUSDT has no mark.
    expect(symbols(batches, 'mark_prices')).toEqual(['BTC-USDT', 'ETH-USDT', 'SOL-USDT']);
    expect(batches.find((b) => b.kind === 'funding' && b.symbol === 'SOL-USDT')!.rows).toEqual([
      { ts: '2025-11-25T08:00:03.000Z', funding_rate: -0.00002144, interval_hours: 8 },
    ]);
  });
});

describe('Bybit v5 linear tickers', () => {
  const body = sample('bybit_futures/tickers_linear_2025-11-25.json') as {
    result: { list: unknown[] };
    time: number;
  };

  it('keeps the USDT perpetuals, at the answer time, with the funding interval when given', () => {
    const batches = bybitLinearBatches(body.result.list, body.time, ['BTC', 'ETH', 'SOL', 'XRP']);
    expect(symbols(batches, 'mark_prices')).toEqual(['BTC-USDT', 'ETH-USDT', 'SOL-USDT', 'XRP-USDT']);
    // XRPUSDT's fundingRate is empty: its mark is kept, no funding row.
    expect(symbols(batches, 'funding')).toEqual(['BTC-USDT', 'ETH-USDT', 'SOL-USDT']);
    const sol = batches.find((b) => b.kind === 'funding' && b.symbol === 'SOL-USDT')!;
    expect(sol.rows).toEqual([{ ts: '2025-11-25T08:00:01.500Z', funding_rate: 0.00003, interval_hours: 4 }]);
    const btc = batches.find((b) => b.kind === 'mark_prices' && b.symbol === 'BTC-USDT')!;
    expect(btc.rows).toEqual([{ ts: '2025-11-25T08:00:01.500Z', mark_price: 87368.4, index_price: 87359.9 }]);
    for (const b of batches) ingestBatchSchema.parse(b);
  });
});

describe('OKX v5 mark-price and funding-rate', () => {
  it('keeps the USDT perpetuals of the live bases (not the inverse BTC-USD-SWAP), as BASE-USDT', () => {
    const { data } = sample('okx_futures/mark_price_swap_2025-11-25.json') as { data: unknown[] };
    const batches = okxMarkBatches(data, ['BTC', 'ETH', 'SOL']);
    expect(symbols(batches, 'mark_prices')).toEqual(['BTC-USDT', 'ETH-USDT', 'SOL-USDT']);
    expect(batches[0]!.rows).toEqual([{ ts: '2025-11-25T08:00:00.420Z', mark_price: 87369.8 }]);
  });

  it('reads the funding interval from fundingTime to nextFundingTime', () => {
    const { data } = sample('okx_futures/funding_rate_SOL-USDT-SWAP_2025-11-25.json') as { data: unknown[] };
    expect(okxFundingBatch(data[0], new Date(0))).toEqual({
      kind: 'funding',
      source: 'okx_futures',
      symbol: 'SOL-USDT',
      rows: [{ ts: '2025-11-25T08:00:00.510Z', funding_rate: -0.0000105, interval_hours: 4 }],
    });
    expect(okxFundingBatch({ instId: 'SOL-USDT-SWAP', fundingRate: '' }, new Date(0))).toBeUndefined();
  });
});
