import { z } from 'zod';

/** Settings every service reads; a service's own config.ts extends this schema. */
export const baseConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535),
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unset: the embedded PGlite under DATA_DIR (all-in-one only). */
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** Unset: the in-process bus (all-in-one only). */
  NATS_URL: z.string().optional(),
  /** Prefix of every subject and stream; tests use it to isolate themselves. */
  BUS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_]+$/)
    .optional(),
  DATA_DIR: z.string().default('.data'),
  /** HMAC key of the gateway's internal caller assertions; shared by the gateway and every service. */
  INTERNAL_AUTH_SECRET: z.string().min(32, 'must be at least 32 characters'),
  ERRORS_BASE: z.string().url().default('https://meridian.example/errors'),
  /** Peers whose X-Forwarded-For is believed (express `trust proxy`): the gateway's network. */
  TRUST_PROXY: z.string().min(1).default('loopback, uniquelocal'),
  /**
   * Test only (tests-e2e/faults.test.ts): the outbox relay waits this long before publishing each
   * row, or after publishing it and before marking it sent, so a test can kill the service in
   * between. Never set otherwise.
   */
  OUTBOX_TEST_RELAY_DELAY_MS: z.coerce.number().int().min(0).default(0),
  OUTBOX_TEST_MARK_DELAY_MS: z.coerce.number().int().min(0).default(0),
});

export type BaseConfig = z.infer<typeof baseConfigSchema>;

/**
 * Parses the environment once at start; every bad key is named, then the process stops. An empty
 * variable means unset (docker-compose passes `DATABASE_URL=` for a key it lists without a value),
 * so it takes the default; `defaults` fill what the environment leaves unset (a service's port).
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
  defaults: Record<string, string> = {},
  /** Settings the caller gathered itself from several variables (e.g. one per connector). */
  gathered: Record<string, unknown> = {},
): z.infer<S> {
  const set = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = schema.safeParse({ ...defaults, ...set, ...gathered });
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new Error(`invalid configuration:\n${lines.join('\n')}`);
}
