import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';

export const configSchema = baseConfigSchema.extend({
  /** The x402 facilitator (its /verify, /settle, /supported). */
  FACILITATOR_URL: z.url().default('http://127.0.0.1:4020'),
  /** Bound on each facilitator call; past it the payment answers 503 (retryable). */
  FACILITATOR_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** How long the facilitator's /supported answer is kept. */
  SUPPORTED_TTL_MS: z.coerce.number().int().positive().default(300_000),
  /** JSON-RPC of a Solana node of the payments' network, read by reconciliation; unset: facilitator only. Never logged. */
  SOLANA_RPC_URL: z.url().optional(),
  /** A payment still `settling` or `pending` this long after its claim is reconciled. */
  RECONCILE_AFTER_MS: z.coerce.number().int().min(1000).default(120_000),
  /** How often reconciliation runs (and looks at one payment again). */
  RECONCILE_EVERY_MS: z.coerce.number().int().min(200).default(30_000),
  /** A payment still open this long after its claim is left `unreconciled` for an operator. */
  RECONCILE_GIVE_UP_MS: z.coerce.number().int().min(1000).default(3_600_000),
});

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, env, { PORT: '8085' });
}
