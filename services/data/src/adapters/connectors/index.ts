import { blockchainInfo } from './blockchain-info.js';
import type { ConnectorDefinition } from './connector.js';

/** Every live upstream (INGEST_MODE=live), one module each; see README "Live connectors". */
export const CONNECTORS: readonly ConnectorDefinition[] = [blockchainInfo];
