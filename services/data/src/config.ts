import { createHmac } from 'node:crypto';
import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';

export const configSchema = baseConfigSchema
  .extend({
    /** HMAC key of the opaque series cursors; unset: derived from INTERNAL_AUTH_SECRET. */
    DATA_CURSOR_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /** `on` (default): play the recorded market data shifted to the present; `off`: store only what is ingested. */
    DATA_REPLAY: z.enum(['on', 'off']).default('on'),
    /** Longest life of a cached reference price in ms (an ingest clears it sooner); 0 disables the cache. */
    DATA_PRICE_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    /** Hours of 1s bars kept; older ones are purged every 10 minutes. */
    DATA_RETENTION_1S_HOURS: z.coerce.number().int().min(1).max(87_600).default(48),
    /** Days of trades kept; older ones are purged every 10 minutes. */
    DATA_RETENTION_TRADES_DAYS: z.coerce.number().int().min(1).max(3_650).default(7),
  })
  .transform((c) => ({
    ...c,
    retention: { candles1sHours: c.DATA_RETENTION_1S_HOURS, tradesDays: c.DATA_RETENTION_TRADES_DAYS },
    cursorKey:
      c.DATA_CURSOR_SECRET ??
      createHmac('sha256', c.INTERNAL_AUTH_SECRET).update('meridian data cursor v1').digest('hex'),
  }));

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, env, { PORT: '8084' });
}
