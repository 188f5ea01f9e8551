import { createHmac } from 'node:crypto';
import { INGEST_MODES } from '@meridian/contracts';
import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';

export const configSchema = baseConfigSchema
  .extend({
    /** HMAC key of the opaque series cursors; unset: derived from INTERNAL_AUTH_SECRET. */
    DATA_CURSOR_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /**
     * `replay` (default): play the recorded data shifted to the present (offline); `live`: poll the
     * real upstreams (src/adapters/connectors/); `off`: store only what is ingested or imported.
     */
    INGEST_MODE: z.enum(INGEST_MODES).default('replay'),
    /** INGEST_MODE=live: only these connectors (comma-separated names); unset: all. */
    INGEST_CONNECTORS: z.string().optional(),
    /** Longest wait for one upstream answer. */
    INGEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** Longest pause of a failing connector before it tries again (a Retry-After may ask for longer). */
    INGEST_MAX_BACKOFF_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .max(86_400_000)
      .default(15 * 60_000),
    /** Said in the connectors' User-Agent (and NCBI's `email`): who runs this deployment. */
    INGEST_CONTACT: z.string().max(200).optional(),
    /** FRED series (macro) need a key: https://fred.stlouisfed.org/docs/api/api_key.html. */
    FRED_API_KEY: z.string().min(1).optional(),
    /** commodities/energy: the EIA API v2 asks for a (free) key. */
    EIA_API_KEY: z.string().min(1).optional(),
    /** Optional: NCBI E-utilities allow 10 requests/s with a key instead of 3. */
    NCBI_API_KEY: z.string().min(1).optional(),
    /** Optional: an Open-Meteo commercial plan's key (sent as `apikey`; point INGEST_URL_OPEN_METEO* at customer-api). */
    OPEN_METEO_API_KEY: z.string().min(1).optional(),
    /** Optional: a Socrata app token (NYC Open Data), sent as X-App-Token, for a higher rate limit. */
    SOCRATA_APP_TOKEN: z.string().min(1).optional(),
    /** What permits this deployment to read ESPN's unofficial scoreboards; the espn connector waits for it. */
    ESPN_LICENCE: z.string().min(1).max(200).optional(),
    /** INGEST_URL_<CONNECTOR>: replaces a connector's upstream base URL (read by parseConfig). */
    connectorUrls: z.record(z.string(), z.string().url()).default({}),
    /** INGEST_EVERY_<CONNECTOR>: replaces a connector's polling period in ms (read by parseConfig). */
    connectorEveryMs: z.record(z.string(), z.coerce.number().int().min(1000).max(86_400_000)).default({}),
    /** Longest life of a cached reference price in ms (an ingest clears it sooner); 0 disables the cache. */
    DATA_PRICE_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    /**
     * Longest life of a kept answer in ms (an ingest of what it reads, a minute boundary or a value
     * turning stale ends it sooner): the bound for a change another replica ingested; 0 disables.
     * Unset: 1000 on Postgres; on PGlite this process is the database's only writer, so only the
     * minute boundary bounds it.
     */
    DATA_ANSWER_CACHE_MS: z.coerce.number().int().min(0).max(60_000).optional(),
    /** Hours of 1s bars kept; older ones are purged every 10 minutes. */
    DATA_RETENTION_1S_HOURS: z.coerce.number().int().min(1).max(87_600).default(48),
    /** Days of trades kept; older ones are purged every 10 minutes. */
    DATA_RETENTION_TRADES_DAYS: z.coerce.number().int().min(1).max(3_650).default(7),
  })
  .transform((c) => ({
    ...c,
    liveIngest: {
      urls: c.connectorUrls,
      everyMs: c.connectorEveryMs,
      only: (c.INGEST_CONNECTORS ?? '')
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
      keys: {
        FRED_API_KEY: c.FRED_API_KEY,
        EIA_API_KEY: c.EIA_API_KEY,
        NCBI_API_KEY: c.NCBI_API_KEY,
        INGEST_CONTACT: c.INGEST_CONTACT,
        OPEN_METEO_API_KEY: c.OPEN_METEO_API_KEY,
        SOCRATA_APP_TOKEN: c.SOCRATA_APP_TOKEN,
        ESPN_LICENCE: c.ESPN_LICENCE,
      },
      timeoutMs: c.INGEST_TIMEOUT_MS,
      maxBackoffMs: c.INGEST_MAX_BACKOFF_MS,
    },
    retention: { candles1sHours: c.DATA_RETENTION_1S_HOURS, tradesDays: c.DATA_RETENTION_TRADES_DAYS },
    cursorKey:
      c.DATA_CURSOR_SECRET ??
      createHmac('sha256', c.INTERNAL_AUTH_SECRET).update('meridian data cursor v1').digest('hex'),
  }));

export type Config = z.infer<typeof configSchema>;

/** The settings named after a connector (INGEST_URL_BINANCE_SPOT=...), keyed by its name (binance_spot). */
function perConnector(env: Record<string, string | undefined>, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env)
      .filter(([k, v]) => k.startsWith(prefix) && v)
      .map(([k, v]) => [k.slice(prefix.length).toLowerCase(), v!]),
  );
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(
    configSchema,
    env,
    { PORT: '8084' },
    {
      connectorUrls: perConnector(env, 'INGEST_URL_'),
      connectorEveryMs: perConnector(env, 'INGEST_EVERY_'),
    },
  );
}
