import { binanceSpot } from './binance-spot.js';
import { bitstampSpot } from './bitstamp-spot.js';
import { blockchainInfo } from './blockchain-info.js';
import { bybitSpot } from './bybit-spot.js';
import { coinbaseSpot } from './coinbase-spot.js';
import type { ConnectorDefinition } from './connector.js';
import { krakenSpot } from './kraken-spot.js';
import { okxSpot } from './okx-spot.js';

/** Every live upstream (INGEST_MODE=live), one module each; see README "Live connectors". */
export const CONNECTORS: readonly ConnectorDefinition[] = [
  blockchainInfo,
  binanceSpot,
  coinbaseSpot,
  krakenSpot,
  okxSpot,
  bybitSpot,
  bitstampSpot,
];
