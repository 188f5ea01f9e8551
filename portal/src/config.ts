import { z } from 'zod';
import { loadConfig } from '@meridian/runtime';

/** The portal's settings: it owns no data, so none of the database or bus keys. */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8088),
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Built files to serve (`pnpm --filter @meridian/portal build`); unset: bundled in memory at start. */
  PORTAL_DIST: z.string().optional(),
});

export type Config = z.infer<typeof configSchema>;

export const parseConfig = (env: Record<string, string | undefined>): Config => loadConfig(configSchema, env);
