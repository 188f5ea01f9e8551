import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';

/** `true` or `false` as written in the environment; anything else is a configuration error. */
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

// --- Pipeline (scanner) settings: src/adapters/scanner, src/flows/run-pipeline.ts ---
const pipelineConfig = {
  /** Resolvers the scanner (and verification) ask, `host:port` comma-separated (`[::1]:53` for IPv6). */
  DNS_SERVERS: z
    .string()
    .default('1.1.1.1:53,8.8.8.8:53')
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x.length > 0),
    )
    .pipe(z.array(z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[0-9.]+)(:\d{1,5})?$/, 'must be host:port')).min(1)),
  /** Tests only: lets the scanner reach loopback targets (never private or metadata ones). */
  SCANNER_ALLOW_LOOPBACK: flag.default(false),
  /**
   * `pnpm start` only: the demo site `host=<http port>/<https port>` on loopback, the one name the
   * scanner may reach there, with its CA (a PEM file) trusted for it alone. Unset everywhere else.
   */
  DEMO_SITE: z
    .string()
    .regex(/^[a-z0-9.-]+=\d{1,5}\/\d{1,5}$/, 'must be host=<http port>/<https port>')
    .transform((s) => {
      const [host, ports] = s.split('=') as [string, string];
      const [httpPort, httpsPort] = ports.split('/').map(Number) as [number, number];
      return { host, httpPort, httpsPort };
    })
    .optional(),
  DEMO_SITE_CA: z.string().min(1).optional(),
  /** Tests only: the ports the scanner uses for http:// and https:// URLs without one. */
  SCANNER_HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(80),
  SCANNER_HTTPS_PORT: z.coerce.number().int().min(1).max(65535).default(443),
  /** Time limit of one connection, DNS query or response (milliseconds). */
  SCANNER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(8000),
  /** Bodies are read up to this many bytes, the rest is dropped. */
  SCANNER_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(50_000_000).default(2_000_000),
  /** Active checks: pause between two requests (milliseconds) and the most requests of a run. */
  SCANNER_ACTIVE_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  SCANNER_ACTIVE_MAX_REQUESTS: z.coerce.number().int().min(1).max(10_000).default(60),
};
// --- end of pipeline settings ---

// --- Platform settings: domains, runs, workers, authorizations, credentials, re-scans ---
const platformConfig = {
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
  /** Runs quoted for an on-chain deposit one account may hold unpaid at once; one more is refused (409). */
  RUN_UNPAID_QUOTES_PER_ACCOUNT: z.coerce.number().int().min(1).max(100).default(3),
  /** An unpaid on-chain quote of a run lapses after this many hours. */
  RUN_QUOTE_HOURS: z.coerce.number().min(0.01).max(720).default(24),
  /** How often the sweeper looks for abandoned runs, pending refunds and lapsed quotes. */
  RUN_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** How often the re-scan scheduler looks for due weekly re-scans. */
  RESCAN_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Trace streams (server-sent events) one replica keeps open at once for one run, one account, in all. */
  TRACE_STREAMS_PER_RUN: z.coerce.number().int().min(1).max(1000).default(4),
  TRACE_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(10),
  TRACE_STREAMS_TOTAL: z.coerce.number().int().min(1).max(100_000).default(500),
  /** Longest window of an active-testing authorization, in days. */
  AUTHORIZATION_MAX_DAYS: z.coerce.number().int().min(1).max(365).default(90),
};

export const configSchema = baseConfigSchema.extend({
  ...pipelineConfig,
  ...platformConfig,
  /** Public address of the platform: share links are minted under it. */
  PUBLIC_BASE_URL: z.string().url().default('http://localhost:8080'),
});

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, env, { PORT: '8083' });
}
