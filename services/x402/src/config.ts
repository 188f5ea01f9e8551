import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';

export const configSchema = baseConfigSchema.extend({
  /** The x402 facilitator (its /verify, /settle, /supported). */
  FACILITATOR_URL: z.url().default('http://127.0.0.1:4020'),
  /** Bound on each facilitator call; past it the payment answers 503 (retryable). */
  FACILITATOR_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** How long the facilitator's /supported answer is kept. */
  SUPPORTED_TTL_MS: z.coerce.number().int().positive().default(300_000),
});

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, env, { PORT: '8085' });
}
