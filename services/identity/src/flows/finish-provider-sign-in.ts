import type { Kysely } from 'kysely';
import { ok, refuse, type Result } from '@meridian/contracts';
import { exchangeCode, type OidcProvider, type ProviderIdentity } from '../adapters/oidc.js';
import type { Database } from '../db/database.js';
import { confirmEmail, findAccountById, lockAccountByEmail } from '../db/repositories/accounts.js';
import { consumeFlow, findLinkedAccount, insertLink } from '../db/repositories/oidc.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { createAccount, disownUnproven, isUnproven } from './accounts.js';
import { startChallenge, type Challenge } from './second-factor.js';
import { startSession, type NewSession } from './sessions.js';

export type ProviderSignIn = { session: NewSession } | { challenge: Challenge };
type Refused = 'oidc_refused' | 'provider_unreachable' | 'conflict';

const refused = (why: string) => refuse('oidc_refused', why);

/**
 * The return leg of a provider sign-in: the browser's flow (single use), the provider's answer,
 * then the account of the identity. Portal 5.3 holds here too: a session starts only on an
 * account whose email is confirmed; with TOTP on, a login challenge instead of a session.
 */
export async function finishProviderSignIn(
  deps: IdentityDeps,
  provider: OidcProvider,
  input: { browser: string | undefined; state: unknown; callbackUrl: URL },
): Promise<Result<ProviderSignIn, Refused>> {
  const flow = input.browser
    ? await consumeFlow(deps.db, hashToken(input.browser), provider.config.id, new Date())
    : undefined;
  if (!flow) return refused('no sign-in was started from this browser, or it expired or was already used');
  if (input.state !== flow.state) return refused('the state does not match');
  const identity = await exchangeCode(provider, input.callbackUrl, flow);
  if (!identity.ok) return identity;
  return deps.db.transaction().execute(async (trx): Promise<Result<ProviderSignIn, Refused>> => {
    const found = await accountFor(trx, identity.value);
    if (!found.ok) return found;
    const account = await findAccountById(trx, found.value);
    // New links only go to confirmed accounts; this keeps any older link from signing in.
    if (!account?.email_confirmed_at)
      return refused('the account of this identity has not confirmed its email address');
    if (account.totp_state === 'active')
      return ok({ challenge: await startChallenge(trx, account.id, 'oidc') });
    return ok({ session: await startSession(trx, deps, account.id, 'oidc') });
  });
}

/**
 * The account of a provider identity: the one linked to (issuer, subject); else the account of
 * the email the provider vouches for, linked from now on. An email the provider does not vouch
 * for is only a claim: it never makes an account nor links one, or whoever holds the identity
 * would keep a way into the account once the address's owner confirms it. An identity that
 * shares no email gets none either: an account must be able to confirm its address (portal 5.3).
 */
async function accountFor(
  trx: Kysely<Database>,
  who: ProviderIdentity,
): Promise<Result<string, 'oidc_refused' | 'conflict'>> {
  const linked = await findLinkedAccount(trx, who.issuer, who.subject);
  if (linked) return ok(linked);
  if (!who.email) return refused('the provider shared no email address, and an account needs one to confirm');
  if (!who.emailVerified)
    return refused(
      'the provider did not verify the email address; sign up with your email and a password, or use a provider that verifies it',
    );
  const accountId = await accountOfVerifiedEmail(trx, who.email);
  if (!accountId) return refuse('conflict', 'The account could not be created; try again.');
  await insertLink(trx, who.issuer, who.subject, accountId);
  return ok(accountId);
}

/**
 * The provider vouches for the address: the account of that email, or a new one with it
 * confirmed. An existing account whose email was never confirmed, or whose password only a sign-up
 * chose, is disowned first (password, links, sessions, keys, second factor), so whoever made it with someone else's address keeps no
 * way in.
 */
async function accountOfVerifiedEmail(trx: Kysely<Database>, email: string): Promise<string | undefined> {
  const byEmail = await lockAccountByEmail(trx, email);
  if (byEmail && isUnproven(byEmail)) {
    await disownUnproven(trx, byEmail.id);
    await confirmEmail(trx, byEmail.id, new Date());
  }
  return (
    byEmail?.id ?? (await createAccount(trx, { email, password_hash: null, email_confirmed_at: new Date() }))
  );
}
