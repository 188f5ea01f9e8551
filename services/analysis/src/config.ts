import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';
import { platformConfig } from './config-platform.js';

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
