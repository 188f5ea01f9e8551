import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

/**
 * Settings of the platform part (domains, runs, workers, authorizations, credentials, re-scans);
 * config.ts spreads them into the service's schema. DNS_SERVERS, which verification also uses, is
 * among the pipeline's settings.
 */
export const platformConfig = {
  /** AES-256-GCM key of stored audit credentials (64 hex or base64 of 32 bytes); unset: a key file in DATA_DIR. */
  CREDENTIALS_KEY: z.string().optional(),
  /** Whether this replica executes runs (a worker on the ANALYSIS_RUNS queue). */
  RUN_WORKER: flag.default(true),
  /** How long a run's job may go without a heartbeat before the queue hands it to another worker. */
  RUN_ACK_WAIT_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
  /** Attempts of a run (a worker died, or the pipeline threw) before it is failed and refunded. */
  RUN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** The longest one attempt of a run may take; past it the attempt counts as failed. */
  RUN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(6 * 3_600_000)
    .default(900_000),
  /** The longest a whole run may take, every attempt together, from its first start; then it fails. */
  RUN_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(6 * 3_600_000)
    .default(600_000),
  /** Runs one account may have queued or running at once; one more is refused (429). */
  RUN_QUEUED_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(5),
  /** An unpaid on-chain quote of a run lapses after this many hours. */
  RUN_QUOTE_HOURS: z.coerce.number().min(0.01).max(720).default(24),
  /** How often the sweeper looks for abandoned runs, pending refunds and lapsed quotes. */
  RUN_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** How often the re-scan scheduler looks for due weekly re-scans. */
  RESCAN_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Trace streams (server-sent events) one replica keeps open at once for one run, and for one account. */
  TRACE_STREAMS_PER_RUN: z.coerce.number().int().min(1).max(1000).default(4),
  TRACE_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(10),
  /** Longest window of an active-testing authorization, in days. */
  AUTHORIZATION_MAX_DAYS: z.coerce.number().int().min(1).max(365).default(90),
};
