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
import { VerifiedCache } from './verified-cache.js';

export interface IdentityCacheSettings {
  KEY_CACHE_TTL_MS: number;
  KEY_CACHE_MAX: number;
  KEY_NEGATIVE_TTL_MS: number;
  KEY_NEGATIVE_MAX: number;
  SESSION_CACHE_TTL_MS: number;
  IDENTITY_MAX_IN_FLIGHT: number;
}

export interface IdentityCaches {
  keys: VerifiedCache<KeyVerifyReply>;
  sessions: VerifiedCache<SessionVerifyReply>;
}

export function identityCaches(bus: Bus, settings: IdentityCacheSettings): IdentityCaches {
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
    }),
    sessions: new VerifiedCache<SessionVerifyReply>({
      bus,
      subject: RPC.identitySessionVerify,
      request: (token) => ({ token }),
      idOf: (v) => v.session_id,
      parse: (data) => sessionVerifyReplySchema.safeParse(data).data,
      ttlMs: settings.SESSION_CACHE_TTL_MS,
      maxEntries: settings.KEY_CACHE_MAX,
      // A session token is never guessed into existence; refusals are not worth remembering.
      negativeTtlMs: 0,
      maxNegative: 0,
      maxInFlight: settings.IDENTITY_MAX_IN_FLIGHT,
    }),
  };
}

/**
 * Fan-out subscriptions (every replica gets every event) that keep the caches true: a revoked key
 * or session is evicted, a changed plan is applied in place.
 */
export async function followIdentityEvents(
  bus: Bus,
  caches: IdentityCaches,
  logger: Logger,
): Promise<Closable[]> {
  const ignored = (subject: string) =>
    logger.warn({ subject }, 'ignored an identity event that does not parse');
  return Promise.all([
    bus.subscribe(EVENTS.identityKeyRevoked, (event) => {
      const data = keyRevokedSchema.safeParse(event.data).data;
      if (data) caches.keys.revoke(data.key_id);
      else ignored(EVENTS.identityKeyRevoked);
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
}
