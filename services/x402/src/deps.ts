import type { ServiceDeps } from '@meridian/runtime';
import type { Facilitator } from './adapters/facilitator.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { PaymentMetrics } from './adapters/metrics.js';
import type { PaymentChain } from './adapters/solana-rpc.js';

/** What every part of this service gets: the chassis' deps, the facilitator client and the payment counters. */
export type X402Deps = ServiceDeps<Database, Config> & {
  facilitator: Facilitator;
  payments: PaymentMetrics;
  /** The chain, when SOLANA_RPC_URL is set: reconciliation looks for a payment's transaction there. */
  chain?: PaymentChain;
};

export const SERVICE = 'x402';
