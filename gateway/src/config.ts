import { INGEST_MODES } from '@meridian/contracts';
import { z } from 'zod';
import { SOLANA_MAINNET, USDC_MINTS, planRateLimitsSetting } from '@meridian/contracts';
import { baseConfigSchema, loadConfig } from '@meridian/runtime';

const url = z.string().url();
const ms = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
/** Where a service listens: one URL, or the URLs of its replicas, comma-separated (domain/replicas.ts). */
const replicas = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine(
      (value) => {
        const parts = value.split(',').map((s) => s.trim());
        return parts.some((s) => s !== '') && parts.every((s) => s === '' || url.safeParse(s).success);
      },
      { message: 'one URL, or several separated by commas' },
    );

export const configSchema = baseConfigSchema
  .omit({ DATABASE_URL: true, DATABASE_POOL_SIZE: true, DATA_DIR: true })
  .extend({
    /**
     * Peers whose X-Forwarded-For is believed. `none` by default: any peer, loopback too, may be a
     * client choosing the address its budgets count under. Behind a load balancer, name its network.
     */
    TRUST_PROXY: z.string().min(1).default('none'),
    /** Largest request body the edge reads before proxying (413 past it). */
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1).default(1_048_576),
    /** How long a request body may take to arrive in full (408 past it); no upstream socket waits for it. */
    BODY_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    /** Requests of one client address in flight at once (429 past it), well below one service's pool. */
    MAX_IN_FLIGHT_PER_CLIENT: z.coerce.number().int().min(1).default(64),
    /** Prometheus metrics listen here, never on the public port; 0 picks a free port. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
    METRICS_HOST: z.string().default('127.0.0.1'),
    /** Each service's URL, or its replicas' URLs comma-separated: taken in turn (see README, Replicas). */
    IDENTITY_URL: replicas('http://127.0.0.1:8081'),
    BILLING_URL: replicas('http://127.0.0.1:8082'),
    ANALYSIS_URL: replicas('http://127.0.0.1:8083'),
    DATA_URL: replicas('http://127.0.0.1:8084'),
    /**
     * The data service's INGEST_MODE (same setting, same default): the catalogue the edge checks queries
     * against and documents (catalogFor), so a keyless check never contradicts the data service.
     */
    INGEST_MODE: z.enum(INGEST_MODES).default('replay'),
    X402_URL: replicas('http://127.0.0.1:8085'),
    REQUESTS_URL: replicas('http://127.0.0.1:8086'),
    /** The MCP edge (mcp/), proxied at `/mcp`. */
    MCP_URL: replicas('http://127.0.0.1:8087'),
    /** The web portal (portal/), proxied at `/` and `/assets`. */
    PORTAL_URL: replicas('http://127.0.0.1:8088'),
    /** How long a replica that refused a connection is passed over while another one answers. */
    REPLICA_REST_MS: z.coerce.number().int().min(0).default(2_000),
    /** How long the gateway waits for a service before answering 504. */
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /** Set: rate-limit buckets live in Redis and every replica shares them. Unset: in memory. */
    REDIS_URL: z.string().optional(),
    RATE_LIMIT_PREFIX: z.string().default('meridian:rl:'),
    RATE_LIMITS: planRateLimitsSetting,
    /**
     * The account-wide ceiling: all data calls of one account (its keys and its sessions together)
     * get at most this many times the plan's per-key limit, shared across replicas like the key buckets.
     */
    ACCOUNT_RATE_MULTIPLE: z.coerce.number().min(1).max(100).default(3),
    KEY_CACHE_TTL_MS: ms(60_000),
    KEY_CACHE_MAX: z.coerce.number().int().min(1).default(100_000),
    /**
     * How long this replica serves a data answer it kept (one the data service declared keepable) at
     * most: the bound for an ingest it has not seen. 0: none kept, every call forwarded.
     */
    DATA_EDGE_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
    /** The most MB of data answers this replica keeps; past it the oldest kept goes first. */
    DATA_EDGE_CACHE_MB: z.coerce.number().min(1).default(32),
    KEY_NEGATIVE_TTL_MS: ms(15_000),
    KEY_NEGATIVE_MAX: z.coerce.number().int().min(1).default(10_000),
    SESSION_CACHE_TTL_MS: ms(30_000),
    SESSION_NEGATIVE_TTL_MS: ms(15_000),
    IDENTITY_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(256),
    /** Unknown or revoked keys (and, apart, session tokens) one client address may present a minute. */
    FAILED_VERIFICATIONS_PER_MIN: z.coerce.number().int().min(1).default(30),
    /** Recipient of the x402 challenge; the default is not a valid address on purpose. */
    X402_PAY_TO: z.string().min(1).default('UNCONFIGURED'),
    /**
     * Fee payer of the challenge, pinned. Unset: the facilitator's own (its /supported), asked of
     * the x402 service and kept.
     */
    X402_FEE_PAYER: z.string().min(1).optional(),
    /**
     * CAIP-2 network of the challenge; unset: SOLANA_NETWORK, the setting billing's prices, credits
     * and quotes name too (parseConfig), else Solana mainnet.
     */
    X402_NETWORK: z
      .string()
      .regex(/^[a-z0-9-]+:[A-Za-z0-9]+$/, 'a CAIP-2 id such as solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')
      .default(SOLANA_MAINNET),
    /** Bound on each request of a paid call to the x402 service (verify, settle): past it 503. */
    X402_TIMEOUT_MS: z.coerce.number().int().min(100).default(8_000),
    /** Public address of the API, for absolute links in the documents and the challenge. */
    PUBLIC_BASE_URL: url.optional(),
    /** '*' (any origin, no credentials) or a comma-separated list of origins that may send cookies. */
    CORS_ORIGINS: z.string().default('*'),
    /** The agent descriptor's install command of the stdio MCP server (data-api-interface 4.6). */
    AGENT_INSTALL_COMMAND: z.string().min(1).optional(),
    CONTACT: z.string().default('mailto:support@meridian.example'),
  })
  .superRefine((config, ctx) => {
    if (!USDC_MINTS[config.X402_NETWORK])
      ctx.addIssue({
        code: 'custom',
        path: ['X402_NETWORK'],
        message: `no USDC mint is known for ${config.X402_NETWORK} (${Object.keys(USDC_MINTS).join(', ')})`,
      });
  });

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  // One network for the challenge and for billing's prices, credits and quotes: SOLANA_NETWORK.
  const network = env.X402_NETWORK || env.SOLANA_NETWORK;
  return loadConfig(
    configSchema,
    { ...env, ...(network ? { X402_NETWORK: network } : {}) },
    { PORT: '8080' },
  );
}
