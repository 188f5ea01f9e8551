import type { ServiceDeps } from '@meridian/runtime';
import type { Facilitator } from './adapters/facilitator.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { PaymentMetrics } from './adapters/metrics.js';

/** What every part of this service gets: the chassis' deps, the facilitator client and the payment counters. */
export type X402Deps = ServiceDeps<Database, Config> & { facilitator: Facilitator; payments: PaymentMetrics };

export const SERVICE = 'x402';
