import {
  RPC,
  keyVerifyRequestSchema,
  sessionVerifyRequestSchema,
  type KeyVerifyReply,
  type RpcReply,
  type SessionVerifyReply,
} from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import type { RpcRegistration } from '@meridian/runtime';
import { findKeyForVerify, markKeyUsed } from '../db/repositories/api-keys.js';
import { findSessionByTokenHash, touchSession } from '../db/repositories/sessions.js';
import { keySecretMatches, parseApiKey } from '../domain/api-key.js';
import { hashToken } from '../domain/secrets.js';
import { lastSeenIsStale, sessionIsLive } from '../domain/session.js';
import type { IdentityDeps } from '../deps.js';
import { accountEmail } from './account.js';
import { operatorResolve } from './operator.js';

const refused = (what: string): RpcReply<never> => ({
  ok: false,
  problem: problem('unauthorized', `The ${what} is missing, unknown, expired or revoked.`),
});

/** Who owns an API key. Noise (bad shape or checksum) is refused without touching the database. */
export async function verifyKey(deps: IdentityDeps, input: unknown): Promise<RpcReply<KeyVerifyReply>> {
  const parsed = keyVerifyRequestSchema.safeParse(input);
  const parts = parsed.success ? parseApiKey(parsed.data.key) : undefined;
  if (!parts) return refused('API key');
  const row = await findKeyForVerify(deps.db, parts.id);
  if (!row || row.revoked_at || !keySecretMatches(parts.secret, row.salt, row.secret_hash))
    return refused('API key');
  const now = new Date();
  // last_used_at is kept to the minute: one write per key per minute at most, off the answer's path.
  if (!row.last_used_at || lastSeenIsStale(row.last_used_at, now)) {
    markKeyUsed(deps.db, row.id, now).catch((err: unknown) =>
      deps.logger.warn({ err }, 'last_used_at update failed'),
    );
  }
  return { ok: true, data: { account_id: row.account_id, key_id: row.id, plan: row.plan } };
}

/** Who holds a session token; revoked, idle-expired or absolutely-expired sessions are refused. */
export async function verifySession(
  deps: IdentityDeps,
  input: unknown,
): Promise<RpcReply<SessionVerifyReply>> {
  const parsed = sessionVerifyRequestSchema.safeParse(input);
  if (!parsed.success) return refused('session');
  const row = await findSessionByTokenHash(deps.db, hashToken(parsed.data.token));
  const now = new Date();
  if (
    !row ||
    !sessionIsLive(
      {
        createdAt: row.created_at,
        lastSeenAt: row.last_seen_at,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
      },
      deps.config.SESSION_IDLE_TTL,
      now,
    )
  )
    return refused('session');
  if (lastSeenIsStale(row.last_seen_at, now)) {
    touchSession(deps.db, row.id, now).catch((err: unknown) =>
      deps.logger.warn({ err }, 'last_seen_at update failed'),
    );
  }
  const operator = row.operator_since ? { role: 'operator' as const } : {};
  return {
    ok: true,
    data: {
      account_id: row.account_id,
      session_id: row.id,
      plan: row.plan,
      ...operator,
      totp_active: row.totp_state === 'active',
      second_factor_at: row.second_factor_at ? row.second_factor_at.toISOString() : null,
      sessions_epoch: row.sessions_epoch,
    },
  };
}

export function rpcHandlers(deps: IdentityDeps): RpcRegistration[] {
  return [
    { subject: RPC.identityKeyVerify, handler: (req: unknown) => verifyKey(deps, req) },
    { subject: RPC.identitySessionVerify, handler: (req: unknown) => verifySession(deps, req) },
    { subject: RPC.identityAccountEmail, handler: (req: unknown) => accountEmail(deps, req) },
    { subject: RPC.identityOperatorResolve, handler: (req: unknown) => operatorResolve(deps, req) },
  ] as RpcRegistration[];
}
