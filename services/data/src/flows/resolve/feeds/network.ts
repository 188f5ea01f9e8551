import type { DataDeps } from '../../../deps.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { latestResolver } from './latest.js';

const btc = () => 'BTC';

/** crypto/network: blockchain.info's network statistics, the newest snapshot as is. */
export const networkResolvers: Record<string, MetricResolver<DataDeps>> = {
  'crypto/network/market_cap': latestResolver({
    source: 'blockchain_info',
    file: 'stats',
    metric: 'btc_market_cap',
    key: btc,
    defaultEntity: 'BTC',
    unit: 'USD',
    method: 'blockchain.info /stats: market_price_usd x circulating supply (totalbc / 1e8).',
  }),
  'crypto/network/hashrate': latestResolver({
    source: 'blockchain_info',
    file: 'stats',
    metric: 'btc_hashrate',
    key: btc,
    defaultEntity: 'BTC',
    unit: 'EH/s',
    method: 'blockchain.info /stats hash_rate (GH/s) divided by 1e9.',
  }),
  'crypto/network/difficulty': latestResolver({
    source: 'blockchain_info',
    file: 'stats',
    metric: 'btc_difficulty',
    key: btc,
    defaultEntity: 'BTC',
    unit: 'count',
    method: 'blockchain.info /stats difficulty as published.',
  }),
  'crypto/network/tx_count': latestResolver({
    source: 'blockchain_info',
    file: 'stats',
    metric: 'btc_tx_count',
    key: btc,
    defaultEntity: 'BTC',
    unit: 'count',
    method: 'blockchain.info /stats n_tx: confirmed transactions over the last 24 h.',
  }),
};
