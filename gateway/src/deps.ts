import type { Bus } from '@meridian/bus';
import type { Plan } from '@meridian/contracts';
import type { Logger, Metrics } from '@meridian/observability';
import type { IdentityCaches } from './adapters/identity.js';
import type { RateLimiter } from './adapters/rate-limiter.js';
import type { Config } from './config.js';
import type { BucketPolicy } from './domain/token-bucket.js';
import type { AssertionSigner } from './edge/assertion.js';
import type { BodyLimits } from './edge/bodies.js';
import type { EdgeFront } from './edge/call.js';
import type { InFlightGate } from './edge/in-flight.js';
import type { SessionEpochs } from './adapters/session-epochs.js';

export const SERVICE = 'gateway';

/** What main.ts opens for the edge: the settings, the bus and the observability pair. */
export interface Deps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  assertionKey: Uint8Array;
  bus: Bus;
}

/** Deps and the edge's own parts, built once by createGateway and shared by both paths. */
export interface EdgeDeps extends Deps {
  signer: AssertionSigner;
  caches: IdentityCaches;
  limiter: RateLimiter;
  /** Every replica's record of the accounts whose sessions all ended (password resets). */
  epochs: SessionEpochs;
  /** The key bucket of each plan (data-api-interface 8, or RATE_LIMITS). */
  plans: Record<Plan, BucketPolicy>;
  /** The account-wide bucket of each plan: ACCOUNT_RATE_MULTIPLE times the key's. */
  accountPlans: Record<Plan, BucketPolicy>;
  inFlight: InFlightGate;
  /** The first steps of every request, on both paths: trace, CORS, client address, place in flight. */
  front: EdgeFront;
  bodies: BodyLimits;
  /** Ready when the bus answers: without it no key or session can be verified. */
  ready: () => Promise<void>;
}
