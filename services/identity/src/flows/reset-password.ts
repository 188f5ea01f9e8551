import { ok, refuse, type Result } from '@meridian/contracts';
import { confirmEmail, findAccountById, setProvenPassword } from '../db/repositories/accounts.js';
import { listApiKeys } from '../db/repositories/api-keys.js';
import { consumeEmailToken, findLiveEmailToken } from '../db/repositories/email-tokens.js';
import { forgetSignIns } from '../db/repositories/known-sign-ins.js';
import { deleteLinks } from '../db/repositories/oidc.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { disownUnproven, isUnproven, removeSecondFactor, revokeEveryKey } from './accounts.js';
import type { WeakPassword } from './outcome.js';
import { hashInTurn, weakPassword } from './passwords.js';
import { endEverySession } from './sessions.js';
import { clearLoginThrottle } from './throttle.js';

const deadLink = () => refuse('invalid_token', 'The reset link is unknown, used or expired.');

/** The answer, and the account's new sessions epoch for the gateway (never in the body). */
export interface ResetDone {
  password_reset: true;
  sessions_revoked: number;
  /** Whether TOTP was removed at the owner's request, and how many keys were revoked. */
  totp_removed: boolean;
  keys_revoked: number;
  account_id: string;
  sessions_epoch: number;
}

/**
 * Sets the password (proven: the mailbox's reader chose it), confirms the address, signs out every
 * session, forgets the known browsers and addresses, and unlinks every provider identity unless
 * the owner keeps them. An account never confirmed, or whose password only a sign-up chose, is disowned first
 * (flows/accounts.ts): its keys, second factor, provider links and sessions may be a squatter's. A password the policy refuses
 * leaves the link usable.
 */
export async function resetPassword(
  deps: IdentityDeps,
  input: {
    token: string;
    password: string;
    keep_provider_links: boolean;
    remove_totp?: boolean;
    revoke_keys?: boolean;
  },
): Promise<Result<ResetDone, 'invalid_token' | WeakPassword['code']>> {
  const tokenHash = hashToken(input.token);
  const hash = await hashInTurn(deps, input.password);
  const holder = await findLiveEmailToken(deps.db, tokenHash, 'reset', new Date());
  const owner = holder ? await findAccountById(deps.db, holder) : undefined;
  if (!owner) return deadLink();
  const weak = await weakPassword(input.password, owner.email ?? '');
  if (weak) return weak;
  const done = await deps.db.transaction().execute(async (trx) => {
    const id = await consumeEmailToken(trx, tokenHash, 'reset', new Date());
    const account = id ? await findAccountById(trx, id) : undefined;
    if (!account) return undefined;
    const ended = await endEverySession(trx, account.id);
    // Whoever signed in with the old password made their browser and address known too.
    await forgetSignIns(trx, account.id);
    // A provider identity linked by whoever held the account is a way back in, unless kept.
    if (!input.keep_provider_links) await deleteLinks(trx, account.id);
    // The mail's reader is the address's proven owner; whoever chose the password so far may not be.
    const epoch = isUnproven(account) ? await disownUnproven(trx, account.id) : ended.epoch;
    // The mailbox's owner locked out of a lost authenticator, or unsure who holds the keys.
    const totpRemoved = input.remove_totp === true && account.totp_state === 'active';
    if (totpRemoved) await removeSecondFactor(trx, account.id);
    const keysRevoked = input.revoke_keys === true ? await revokeEveryKey(trx, account.id) : 0;
    await setProvenPassword(trx, account.id, hash, new Date());
    await confirmEmail(trx, account.id, new Date());
    return { email: account.email, id: account.id, revoked: ended.revoked, epoch, totpRemoved, keysRevoked };
  });
  if (!done) return deadLink();
  if (done.email) await clearLoginThrottle(deps.db, done.email);
  return ok({
    password_reset: true,
    sessions_revoked: done.revoked,
    totp_removed: done.totpRemoved,
    keys_revoked: done.keysRevoked,
    account_id: done.id,
    sessions_epoch: done.epoch,
  });
}

/** What the reset page tells the mailbox's owner: whether TOTP is on, and the keys that stay live. */
export interface ResetContext {
  totp_active: boolean;
  live_keys: { prefix: string; created_at: string; last_used_at: string | null }[];
}

/** The reset link's account as its page shows it (nothing when the link is dead); changes nothing. */
export async function resetContext(deps: IdentityDeps, token: string): Promise<ResetContext | null> {
  const holder = await findLiveEmailToken(deps.db, hashToken(token), 'reset', new Date());
  const account = holder ? await findAccountById(deps.db, holder) : undefined;
  if (!account) return null;
  const keys = await listApiKeys(deps.db, account.id);
  return {
    totp_active: account.totp_state === 'active',
    live_keys: keys
      .filter((k) => k.revoked_at === null)
      .map((k) => ({
        prefix: k.prefix,
        created_at: k.created_at.toISOString(),
        last_used_at: k.last_used_at?.toISOString() ?? null,
      })),
  };
}
