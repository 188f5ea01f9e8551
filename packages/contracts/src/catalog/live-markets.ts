/**
 * The markets the live connectors serve (INGEST_MODE=live; issue 16, data-api-interface 2.3: 19 spot
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
