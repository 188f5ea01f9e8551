/**
 * The markets the live connectors serve (INGEST_MODE=live; data-api-interface 2.3: 19 spot
 * and 19 futures markets). Under replay the catalogue lists only the recorded BTC markets; live mode
 * lists these. Entities are BASE-QUOTE; a futures entity is the perpetual of its base, answered in USD.
 */
export const LIVE_SPOT_MARKETS = [
  'BTC-USD', 'BTC-USDT', 'BTC-USDC',
  'ETH-USD', 'ETH-USDT', 'ETH-USDC',
  'SOL-USD', 'SOL-USDT', 'SOL-USDC',
  'XRP-USD', 'XRP-USDT',
  'DOGE-USD', 'DOGE-USDT',
  'ADA-USD', 'ADA-USDT',
  'AVAX-USD', 'LINK-USD', 'LTC-USD', 'DOT-USD',
] as const; // prettier-ignore

/** The perpetuals of crypto/futures in live mode, one per base, named BASE-USD. */
export const LIVE_FUTURES_MARKETS = [
  'BTC-USD', 'ETH-USD', 'SOL-USD', 'XRP-USD', 'DOGE-USD', 'ADA-USD', 'AVAX-USD', 'LINK-USD',
  'LTC-USD', 'DOT-USD', 'BCH-USD', 'TRX-USD', 'ATOM-USD', 'NEAR-USD', 'UNI-USD', 'ARB-USD',
  'OP-USD', 'APT-USD', 'FIL-USD',
] as const; // prettier-ignore

/** The option underlyings Deribit lists with enough depth to answer a chain. */
export const LIVE_OPTION_UNDERLYINGS = ['BTC', 'ETH'] as const;

/**
 * Per venue, the markets of LIVE_SPOT_MARKETS it lists (`venue_entities` of crypto/spot in live mode).
 * Each spot connector's symbol map covers exactly its venue's list here, plus the USDT-USD and USDC-USD
 * books the reference price converts a stablecoin quote with (services/data tests it).
 */
export const LIVE_SPOT_VENUES: Readonly<Record<string, readonly LiveSpotMarket[]>> = {
  binance: ['BTC-USDT', 'BTC-USDC', 'ETH-USDT', 'ETH-USDC', 'SOL-USDT', 'SOL-USDC', 'XRP-USDT', 'DOGE-USDT', 'ADA-USDT'],
  coinbase: [
    'BTC-USD', 'BTC-USDT', 'ETH-USD', 'ETH-USDT', 'SOL-USD', 'SOL-USDT', 'XRP-USD', 'XRP-USDT',
    'DOGE-USD', 'DOGE-USDT', 'ADA-USD', 'ADA-USDT', 'AVAX-USD', 'LINK-USD', 'LTC-USD', 'DOT-USD',
  ],
  kraken: [
    'BTC-USD', 'BTC-USDT', 'BTC-USDC', 'ETH-USD', 'ETH-USDT', 'ETH-USDC', 'SOL-USD', 'SOL-USDT',
    'SOL-USDC', 'XRP-USD', 'XRP-USDT', 'DOGE-USD', 'DOGE-USDT', 'ADA-USD', 'ADA-USDT', 'AVAX-USD',
    'LINK-USD', 'LTC-USD', 'DOT-USD',
  ],
  okx: ['BTC-USDT', 'BTC-USDC', 'ETH-USDT', 'ETH-USDC', 'SOL-USDT', 'SOL-USDC', 'XRP-USDT', 'DOGE-USDT', 'ADA-USDT'],
  bybit: ['BTC-USDT', 'BTC-USDC', 'ETH-USDT', 'ETH-USDC', 'SOL-USDT', 'SOL-USDC', 'XRP-USDT', 'DOGE-USDT', 'ADA-USDT'],
  bitstamp: [
    'BTC-USD', 'BTC-USDT', 'BTC-USDC', 'ETH-USD', 'ETH-USDT', 'ETH-USDC', 'SOL-USD', 'XRP-USD',
    'XRP-USDT', 'DOGE-USD', 'ADA-USD', 'AVAX-USD', 'LINK-USD', 'LTC-USD', 'DOT-USD',
  ],
}; // prettier-ignore

export type LiveSpotMarket = (typeof LIVE_SPOT_MARKETS)[number];
