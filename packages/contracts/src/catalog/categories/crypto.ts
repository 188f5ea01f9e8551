import type { ProductEntry } from '../types.js';
import { DAY, MINUTE, polled, published } from '../cadence.js';
import { LIVE_FUTURES_MARKETS, LIVE_OPTION_UNDERLYINGS } from '../live-markets.js';
import { HISTORY, product } from '../product.js';

/**
 * Spot entities: BASE-USD is the combined cross-venue value in USD; a venue's own market (BASE-USDT,
 * BASE-USDC, ...) is answered natively with `source=<venue>`. Only markets with recorded data are
 * listed (data-api-interface 2.3 counts 19 spot and 19 futures markets but names none; the data
 * service's README says which markets the recordings hold). Ingestion refuses other symbols.
 */
const SPOT_PAIRS = ['BTC-USD', 'BTC-USDT', 'BTC-USDC'];
/** The combined value across venues is in USD: without a source, these metrics answer BASE-USD. */
const COMBINED = { combined_entities: ['BTC-USD'] };
/** The books each venue of the recordings lists (services/data/docs/catalogue.md). */
const SPOT_BOOKS = { binanceus: SPOT_PAIRS, kraken: ['BTC-USDC'] };

/**
 * What crypto/futures and crypto/options list in live mode (INGEST_MODE=live), in place of the
 * recorded entries below: the venues of the live connectors and the markets they serve. The
 * default entity stays BTC's.
 */
export const LIVE_DERIVATIVES: Record<'futures' | 'options', Pick<ProductEntry, 'sources' | 'entities'>> = {
  futures: {
    sources: ['binance_futures', 'bybit_futures', 'okx_futures', 'deribit'],
    entities: [...LIVE_FUTURES_MARKETS],
  },
  options: { sources: ['deribit'], entities: [...LIVE_OPTION_UNDERLYINGS] },
};

export const CRYPTO: readonly ProductEntry[] = [
  product(
    'crypto',
    'spot',
    'free',
    // A venue prints a bar only for a second or minute with trades, so a quiet market's newest bar may be
    // minutes old; a quarter of an hour without one means the market stopped printing for us.
    { words: '1s/1m native', ms: MINUTE, maxAgeMs: 15 * MINUTE },
    ['binanceus', 'kraken'],
    SPOT_PAIRS,
    [
      [
        'reference_price',
        'object',
        'USD',
        'Outlier-trimmed cross-venue price in USD with per-venue provenance; source= narrows the venues',
        { entities: ['BTC-USD'] },
      ],
      [
        'change_24h',
        'object',
        'percent',
        'Latest close versus the close about 24 h earlier, from combined OHLCV',
        COMBINED,
      ],
      ['range_24h', 'object', 'USD', '24 h high, low and total volume from combined 1m OHLCV', COMBINED],
      [
        'vwap_24h',
        'object',
        'USD',
        '24 h volume-weighted average price proxy (sum of midprice x volume over volume)',
        COMBINED,
      ],
      [
        'realized_volatility_24h',
        'object',
        'percent',
        'Standard deviation of per-minute log returns, plus an annualized figure',
        COMBINED,
      ],
      ['trade_count_24h', 'object', 'count', 'Sum of trade counts over 24 h across venues', COMBINED],
      [
        'ohlcv',
        'series',
        'USD',
        'Open, high, low, close, volume bars; per venue or combined; 1s and 1m native',
        COMBINED,
      ],
      [
        'trades',
        'series',
        'USD',
        'Normalized taker-aggressor trade prints per venue',
        { min_tier: 'basic', cadence: 'real-time tick' },
      ],
    ],
    [
      ['order_book_depth', 'object', 'USD', 'Bid and ask depth within 1 % of the mid, per venue'],
      ['spread', 'object', 'percent', 'Best bid-ask spread per venue'],
    ],
    { default_entity: 'BTC-USD', venue_entities: SPOT_BOOKS },
  ),
  product(
    'crypto',
    'options',
    'pro',
    // Deribit marks change continuously; the chain is one poll, and a mark older than max_age_ms before
    // the newest is not part of the newest snapshot (an instrument no longer listed).
    polled(60),
    ['deribit'],
    ['BTC'],
    [
      [
        'chain',
        'object',
        'USD',
        'Options chain with marks, implied volatility, greeks and open interest',
        { filters: ['option_type', 'expiry'] },
      ],
      ['implied_vol_index', 'object', 'percent', '30-day implied volatility index from the chain'],
      ['put_call_oi_ratio', 'object', 'ratio', 'Put open interest over call open interest'],
      [
        'open_interest',
        'object',
        'contracts',
        'Total open interest of calls and puts, in contracts of 1 underlying unit',
      ],
    ],
    [],
    { default_entity: 'BTC' },
  ),
  product(
    'crypto',
    'futures',
    'ultra',
    polled(60),
    // The recorded Binance USD-M perpetuals (services/data/docs/catalogue.md).
    ['binance_futures'],
    ['BTC-USD', 'ETH-USD'],
    [
      ['funding', 'object', 'rate', 'Perpetual funding rate'],
      ['mark_price', 'object', 'USD', 'Futures mark price'],
      ['basis', 'object', 'percent', '(perp mark_price - spot reference_price) / reference_price x 100'],
      [
        'last_price',
        'object',
        'USD',
        'Last traded price of the perpetual: the close of its newest 1m bar, in USD',
      ],
      [
        'taker_flow',
        'object',
        'base asset',
        'Taker buy and taker sell volume of the newest 1m bar of the perpetual, and their ratio',
      ],
    ],
    [],
    { default_entity: 'BTC-USD' },
  ),
  product(
    'crypto',
    'etf_flows',
    'free',
    // Farside dates a trading day's flow 00:00 UTC of that day and publishes it after the US close.
    published('daily, US trading days, after the close', DAY, { lag: DAY, businessDays: true }),
    ['farside'],
    ['IBIT', 'FBTC', 'GBTC', 'ARKB', 'BITB'],
    [
      [
        'net_flow',
        'object',
        'USD',
        "Net creation or redemption flow of the day, all funds (Farside Investors' table; it publishes no reuse licence)",
        HISTORY,
      ],
      ['cumulative_net_flow', 'object', 'USD', 'Cumulative net flow since launch', HISTORY],
      ['flow_by_etf', 'object', 'USD', 'Net flow of the day per fund'],
    ],
  ),
  product(
    'crypto',
    'network',
    'free',
    // blockchain.info /stats moves with the blocks, about one every 10 minutes.
    polled(600),
    ['blockchain_info'],
    ['BTC'],
    [
      ['market_cap', 'scalar', 'USD', 'Market capitalisation', HISTORY],
      ['hashrate', 'scalar', 'EH/s', 'Network hash rate', HISTORY],
      ['difficulty', 'scalar', 'count', 'Mining difficulty', HISTORY],
      ['tx_count', 'scalar', 'count', 'Transactions in the last 24 h', HISTORY],
    ],
    [],
    { default_entity: 'BTC' },
  ),
];
