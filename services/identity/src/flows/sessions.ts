import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { EVENTS } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import {
  bumpSessionsEpoch,
  insertSession,
  revokeAllSessions,
  revokeSession,
} from '../db/repositories/sessions.js';
import { hashToken, newToken } from '../domain/secrets.js';
import { sessionExpiry } from '../domain/session.js';
import type { IdentityDeps } from '../deps.js';
import { announce } from './events.js';

export interface NewSession {
  token: string;
  session_id: string;
  expires_at: string;
}

/** A new session; `secondFactorPassed` when its sign-in was answered with a current TOTP code. */
export async function startSession(
  trx: Kysely<Database>,
  deps: IdentityDeps,
  accountId: string,
  method: 'password' | 'oidc',
  secondFactorPassed = false,
): Promise<NewSession> {
  const token = newToken();
  const now = new Date();
  const id = randomUUID();
  const expiresAt = sessionExpiry(now, deps.config.SESSION_ABSOLUTE_TTL);
  await insertSession(trx, {
    id,
    account_id: accountId,
    token_hash: hashToken(token),
    method,
    created_at: now,
    last_seen_at: now,
    expires_at: expiresAt,
    revoked_at: null,
    second_factor_at: secondFactorPassed ? now : null,
  });
  return { token, session_id: id, expires_at: expiresAt.toISOString() };
}

export async function endSession(
  trx: Kysely<Database>,
  accountId: string,
  sessionId: string,
): Promise<boolean> {
  const at = new Date();
  if (!(await revokeSession(trx, accountId, sessionId, at))) return false;
  await announce(trx, EVENTS.identitySessionRevoked, {
    session_id: sessionId,
    account_id: accountId,
    revoked_at: at.toISOString(),
  });
  return true;
}

/**
 * Ends every session of the account and counts one more such ending (`sessions_epoch`), which
 * the gateway compares with what it cached: answers how many ended and the new count.
 */
export async function endEverySession(
  trx: Kysely<Database>,
  accountId: string,
): Promise<{ revoked: number; epoch: number }> {
  const at = new Date();
  const ids = await revokeAllSessions(trx, accountId, at);
  const epoch = await bumpSessionsEpoch(trx, accountId);
  for (const id of ids) {
    await announce(trx, EVENTS.identitySessionRevoked, {
      session_id: id,
      account_id: accountId,
      revoked_at: at.toISOString(),
    });
  }
  return { revoked: ids.length, epoch };
}
