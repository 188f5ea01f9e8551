import { binanceFutures } from './binance-futures.js';
import { blockchainInfo } from './blockchain-info.js';
import { bybitFutures } from './bybit-futures.js';
import type { ConnectorDefinition } from './connector.js';
import { deribit } from './deribit.js';
import { okxFutures } from './okx-futures.js';

/** Every live upstream (INGEST_MODE=live), one module each; see README "Live connectors". */
export const CONNECTORS: readonly ConnectorDefinition[] = [
  blockchainInfo,
  deribit,
  binanceFutures,
  bybitFutures,
  okxFutures,
];
