import type { Bus, Closable } from '@meridian/bus';
import {
  EVENTS,
  RPC,
  accountPlanChangedSchema,
  keyRevokedSchema,
  keyVerifyReplySchema,
  sessionRevokedSchema,
  sessionVerifyReplySchema,
  type KeyVerifyReply,
  type SessionVerifyReply,
} from '@meridian/contracts';
import type { Logger } from '@meridian/observability';
import { perMinute } from '../domain/token-bucket.js';
import type { RateLimiter } from './rate-limiter.js';
import { FailureBudget } from './failure-budget.js';
import type { SessionEpochs } from './session-epochs.js';
import { VerifiedCache } from './verified-cache.js';

export interface IdentityCacheSettings {
  KEY_CACHE_TTL_MS: number;
  KEY_CACHE_MAX: number;
  KEY_NEGATIVE_TTL_MS: number;
  KEY_NEGATIVE_MAX: number;
  SESSION_CACHE_TTL_MS: number;
  SESSION_NEGATIVE_TTL_MS: number;
  IDENTITY_MAX_IN_FLIGHT: number;
  FAILED_VERIFICATIONS_PER_MIN: number;
}

export interface IdentityCaches {
  keys: VerifiedCache<KeyVerifyReply>;
  sessions: VerifiedCache<SessionVerifyReply>;
}

/**
 * The key and session caches. With a limiter, each client address may fail
 * FAILED_VERIFICATIONS_PER_MIN verifications a minute per kind before identity is asked again.
 * With epochs, a cached session whose account's sessions all ended since (a password reset) is
 * asked about again.
 */
export function identityCaches(
  bus: Bus,
  settings: IdentityCacheSettings,
  limiter?: RateLimiter,
  epochs?: SessionEpochs,
): IdentityCaches {
  const budget = (name: string) =>
    limiter && new FailureBudget(limiter, name, perMinute(settings.FAILED_VERIFICATIONS_PER_MIN));
  return {
    keys: new VerifiedCache<KeyVerifyReply>({
      bus,
      subject: RPC.identityKeyVerify,
      request: (key) => ({ key }),
      idOf: (v) => v.key_id,
      parse: (data) => keyVerifyReplySchema.safeParse(data).data,
      ttlMs: settings.KEY_CACHE_TTL_MS,
      maxEntries: settings.KEY_CACHE_MAX,
      negativeTtlMs: settings.KEY_NEGATIVE_TTL_MS,
      maxNegative: settings.KEY_NEGATIVE_MAX,
      maxInFlight: settings.IDENTITY_MAX_IN_FLIGHT,
      budget: budget('unknown-key'),
    }),
    sessions: new VerifiedCache<SessionVerifyReply>({
      bus,
      subject: RPC.identitySessionVerify,
      request: (token) => ({ token }),
      idOf: (v) => v.session_id,
      parse: (data) => sessionVerifyReplySchema.safeParse(data).data,
      ttlMs: settings.SESSION_CACHE_TTL_MS,
      maxEntries: settings.KEY_CACHE_MAX,
      // A session token never becomes valid after it was refused (identity mints a new one at
      // each sign-in), so remembering refusals is exact; a browser's stale cookie costs one ask.
      negativeTtlMs: settings.SESSION_NEGATIVE_TTL_MS,
      maxNegative: settings.KEY_NEGATIVE_MAX,
      maxInFlight: settings.IDENTITY_MAX_IN_FLIGHT,
      budget: budget('unknown-session'),
      ...(epochs ? { stale: (v: SessionVerifyReply) => staleSession(epochs, v) } : {}),
    }),
  };
}

/** Whether the account's sessions all ended after identity vouched for this one (undefined: unknown). */
async function staleSession(
  epochs: SessionEpochs,
  session: SessionVerifyReply,
): Promise<boolean | undefined> {
  const current = await epochs.current(session.account_id);
  return current === undefined ? undefined : current > session.sessions_epoch;
}

/**
 * Fan-out subscriptions (every replica gets every event) that keep the caches true: a revoked key
 * or session is evicted, a changed plan is applied in place. Core NATS keeps nothing for a
 * subscriber that was away, so after a reconnection both caches are emptied: whatever was revoked
 * or changed plan during the gap is verified again by identity on its next use.
 */
export async function followIdentityEvents(
  bus: Bus,
  caches: IdentityCaches,
  logger: Logger,
  /** Told of each revoked key before the cache forgets it (the rate limits keep its spent budget). */
  keyRevoked?: (key: KeyVerifyReply | undefined, revoked: { key_id: string; account_id: string }) => void,
): Promise<Closable[]> {
  const ignored = (subject: string) =>
    logger.warn({ subject }, 'ignored an identity event that does not parse');
  const reconnected = bus.onReconnect(() => {
    logger.warn('bus reconnected: identity events may have been missed; key and session caches emptied');
    caches.keys.clear();
    caches.sessions.clear();
  });
  const subscriptions = await Promise.all([
    bus.subscribe(EVENTS.identityKeyRevoked, (event) => {
      const data = keyRevokedSchema.safeParse(event.data).data;
      if (!data) return ignored(EVENTS.identityKeyRevoked);
      keyRevoked?.(caches.keys.cachedById(data.key_id), data);
      caches.keys.revoke(data.key_id);
    }),
    bus.subscribe(EVENTS.identitySessionRevoked, (event) => {
      const data = sessionRevokedSchema.safeParse(event.data).data;
      if (data) caches.sessions.revoke(data.session_id);
      else ignored(EVENTS.identitySessionRevoked);
    }),
    bus.subscribe(EVENTS.identityAccountPlanChanged, (event) => {
      const data = accountPlanChangedSchema.safeParse(event.data).data;
      if (!data) return ignored(EVENTS.identityAccountPlanChanged);
      caches.keys.planChanged(data.account_id, data.plan);
      caches.sessions.planChanged(data.account_id, data.plan);
    }),
  ]);
  return [reconnected, ...subscriptions];
}
