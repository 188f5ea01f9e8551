import { parseBlockchainStats } from '../../parsers/feeds/markets.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import type { ConnectorDefinition } from '../connector.js';

/**
 * blockchain.info `GET /stats` (no key): hash rate, difficulty, 24 h transactions, price and supply
 * for crypto/network. The same parser reads the recording (recordings/blockchain_info/), with the
 * upstream's own timestamps kept as they are (recordedTime).
 */
export const blockchainInfo: ConnectorDefinition = {
  name: 'blockchain_info',
  products: ['crypto/network'],
  url: 'https://api.blockchain.info',
  cadenceMs: 10 * 60_000,
  open: (url) => async (http) => [parseBlockchainStats(await http.text(`${url}/stats`), recordedTime)],
};
