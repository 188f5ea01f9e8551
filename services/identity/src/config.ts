import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { planKeyCapsSetting, planRateLimitsSetting } from '@meridian/contracts';

const seconds = z.coerce.number().int().positive();

/** One OpenID provider: `id` is the path segment of /auth/oauth/{id}. */
export const oidcProviderSchema = z.object({
  id: z.string().regex(/^[a-z0-9_-]{1,32}$/),
  name: z.string().min(1).max(64),
  issuer: z.string().url(),
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  redirect_uri: z.string().url(),
});
export type OidcProviderConfig = z.infer<typeof oidcProviderSchema>;

const providersJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of providers' });
      return z.NEVER;
    }
  })
  .pipe(z.array(oidcProviderSchema));

export const configSchema = baseConfigSchema
  .extend({
    /** Per-minute limit overrides, the gateway's own (shown in the account's entitlements). */
    RATE_LIMITS: planRateLimitsSetting,
    /** Live API keys an account may hold by plan, `free=2,basic=5,...` over the defaults of contracts. */
    KEY_CAPS: planKeyCapsSetting,
    /** Base of the links in mails (confirmation, reset) and of the post-sign-in redirect. */
    PUBLIC_BASE_URL: z.string().url().default('http://localhost:8080'),
    /** Unset: each mail is written as an .eml file into MAIL_DIR (all-in-one). */
    SMTP_URL: z.string().url().optional(),
    /** Where mails go without SMTP_URL; unset: DATA_DIR/mail. */
    MAIL_DIR: z.string().min(1).optional(),
    MAIL_FROM: z.string().min(3).default('Meridian <no-reply@meridian.example>'),
    BCRYPT_COST: z.coerce.number().int().min(12).max(16).default(12),
    /** Seconds a session survives without use, and at most from sign-in. */
    SESSION_IDLE_TTL: seconds.default(24 * 3600),
    SESSION_ABSOLUTE_TTL: seconds.default(14 * 24 * 3600),
    /** 32 bytes, base64 or hex; unset: generated once into DATA_DIR/identity-totp.key. */
    TOTP_ENCRYPTION_KEY: z.string().optional(),
    TOTP_ISSUER: z.string().min(1).default('Meridian'),
    /** Failed sign-ins at one email from one client address before each attempt waits, and before a lock. */
    LOGIN_DELAY_AFTER: z.coerce.number().int().min(1).default(5),
    LOGIN_LOCK_AFTER: z.coerce.number().int().min(2).default(10),
    /** Failed sign-ins at one email from anywhere: a slower backoff, lifted by the mailed unlock link. */
    LOGIN_ACCOUNT_DELAY_AFTER: z.coerce.number().int().min(1).default(20),
    LOGIN_ACCOUNT_LOCK_AFTER: z.coerce.number().int().min(2).default(30),
    /** The same per client address, looser because many people can share one address. */
    LOGIN_IP_DELAY_AFTER: z.coerce.number().int().min(1).default(20),
    LOGIN_IP_LOCK_AFTER: z.coerce.number().int().min(2).default(50),
    LOGIN_LOCK_SECONDS: seconds.default(15 * 60),
    /** Sign-ups one client address may make per window (then 429 with retry_after). */
    SIGNUP_ADDRESS_LIMIT: z.coerce.number().int().min(1).default(10),
    SIGNUP_ADDRESS_WINDOW: seconds.default(3600),
    /** Password hashes (sign-up, reset) bcrypt runs at once; the rest wait, so sign-ins keep threads. */
    PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
    /** API keys one account may create per window, revoked ones included. */
    KEY_CREATION_LIMIT: z.coerce.number().int().min(1).default(10),
    KEY_CREATION_WINDOW: seconds.default(3600),
    /** Consecutive wrong second factors of one account before they lock for LOGIN_LOCK_SECONDS. */
    TWO_FACTOR_LOCK_AFTER: z.coerce.number().int().min(2).default(10),
    OIDC_PROVIDERS: providersJson.optional(),
    OIDC_PROVIDER_ID: z.string().default('idp'),
    OIDC_PROVIDER_NAME: z.string().default('Identity provider'),
    OIDC_ISSUER: z.string().url().optional(),
    OIDC_CLIENT_ID: z.string().optional(),
    OIDC_CLIENT_SECRET: z.string().optional(),
    OIDC_REDIRECT_URI: z.string().url().optional(),
  })
  .superRefine((c, ctx) => {
    if (c.SESSION_IDLE_TTL > c.SESSION_ABSOLUTE_TTL)
      ctx.addIssue({ code: 'custom', path: ['SESSION_IDLE_TTL'], message: 'exceeds SESSION_ABSOLUTE_TTL' });
    if (c.OIDC_ISSUER && !c.OIDC_CLIENT_ID)
      ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_ID'], message: 'required with OIDC_ISSUER' });
  });

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, env, { PORT: '8081' });
}

/** Every configured provider: OIDC_PROVIDERS, plus the single OIDC_ISSUER one. */
export function oidcProviders(config: Config): OidcProviderConfig[] {
  const list = [...(config.OIDC_PROVIDERS ?? [])];
  if (config.OIDC_ISSUER && config.OIDC_CLIENT_ID) {
    list.push({
      id: config.OIDC_PROVIDER_ID,
      name: config.OIDC_PROVIDER_NAME,
      issuer: config.OIDC_ISSUER,
      client_id: config.OIDC_CLIENT_ID,
      client_secret: config.OIDC_CLIENT_SECRET,
      redirect_uri:
        config.OIDC_REDIRECT_URI ??
        `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/auth/oauth/${config.OIDC_PROVIDER_ID}/callback`,
    });
  }
  return list;
}
