import { blockchainInfo } from './blockchain-info.js';
import type { ConnectorDefinition } from './connector.js';
import { ecb } from './ecb.js';
import { eia } from './eia.js';
import { farside } from './farside.js';
import { fred, fredIndices } from './fred.js';
import { lbma } from './lbma.js';
import { pubmed } from './pubmed.js';

/** Every live upstream (INGEST_MODE=live), one module each; see README "Live connectors". */
export const CONNECTORS: readonly ConnectorDefinition[] = [
  blockchainInfo,
  farside,
  ecb,
  fredIndices,
  eia,
  lbma,
  fred,
  pubmed,
];
