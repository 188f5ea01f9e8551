import type { Kysely } from 'kysely';
import { ok, refuse, type Result } from '@meridian/contracts';
import { exchangeCode, type OidcProvider, type ProviderIdentity } from '../adapters/oidc.js';
import type { Database } from '../db/database.js';
import { confirmEmail, findAccountById, lockAccountByEmail } from '../db/repositories/accounts.js';
import { consumeFlow, findLinkedAccount } from '../db/repositories/oidc.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { createAccount, disownUnproven } from './accounts.js';
import { rememberSignIn, type SignInPlace } from './known-sign-ins.js';
import { linkAndTell, offerLink } from './provider-links.js';
import { startChallenge, type Challenge } from './second-factor.js';
import { startSession, type NewSession } from './sessions.js';

/**
 * What the callback ends in: a session (with the browser's device token), a TOTP challenge, the
 * identity linked to the signed-in account, or a consent mail sent to the owner of the account
 * the identity's email names (no session).
 */
export type ProviderSignIn =
  | { session: NewSession; device: string }
  | { challenge: Challenge }
  | { linked: true }
  | { consent_mailed: true };
type Refused = 'oidc_refused' | 'provider_unreachable' | 'conflict';
type Found = { account: string } | { consent_mailed: true };

const refused = (why: string) => refuse('oidc_refused', why);

/**
 * The return leg of a provider sign-in: the browser's flow (single use), the provider's answer,
 * then the account of the identity. Portal 5.3 holds here too: a session starts only on an
 * account whose email is confirmed; with TOTP on, a login challenge instead of a session.
 * `signedIn`: the account of the session the request carries, which the identity is linked to.
 */
export async function finishProviderSignIn(
  deps: IdentityDeps,
  provider: OidcProvider,
  input: {
    browser: string | undefined;
    state: unknown;
    callbackUrl: URL;
    signedIn: string | undefined;
    place: SignInPlace;
  },
): Promise<Result<ProviderSignIn, Refused>> {
  const flow = input.browser
    ? await consumeFlow(deps.db, hashToken(input.browser), provider.config.id, new Date())
    : undefined;
  if (!flow) return refused('no sign-in was started from this browser, or it expired or was already used');
  if (input.state !== flow.state) return refused('the state does not match');
  const identity = await exchangeCode(provider, input.callbackUrl, flow);
  if (!identity.ok) return identity;
  const who = identity.value;
  const outcome = await deps.db
    .transaction()
    .execute(async (trx): Promise<Result<ProviderSignIn, Refused>> => {
      const linked = await findLinkedAccount(trx, who.issuer, who.subject);
      if (input.signedIn) return linkToSignedIn(trx, deps, who, linked, input.signedIn);
      const found = linked ? ok({ account: linked }) : await accountFor(trx, deps, who);
      if (!found.ok) return found;
      if (!('account' in found.value)) return ok(found.value);
      return signInTo(trx, deps, found.value.account, input.place);
    });
  deps.mail.kick();
  return outcome;
}

/** The owner, signed in, asked for the link: it is made at once, and told by mail all the same. */
async function linkToSignedIn(
  trx: Kysely<Database>,
  deps: IdentityDeps,
  who: ProviderIdentity,
  linked: string | undefined,
  signedIn: string,
): Promise<Result<ProviderSignIn, Refused>> {
  if (linked === signedIn) return ok({ linked: true });
  if (linked)
    return refuse('conflict', 'This provider identity is linked to another account; unlink it there first.');
  await linkAndTell(trx, deps, signedIn, who);
  return ok({ linked: true });
}

async function signInTo(
  trx: Kysely<Database>,
  deps: IdentityDeps,
  accountId: string,
  place: SignInPlace,
): Promise<Result<ProviderSignIn, Refused>> {
  const account = await findAccountById(trx, accountId);
  // New links only go to confirmed accounts; this keeps any older link from signing in.
  if (!account?.email_confirmed_at)
    return refused('the account of this identity has not confirmed its email address');
  if (account.totp_state === 'active')
    return ok({ challenge: await startChallenge(trx, account.id, 'oidc') });
  return ok({
    session: await startSession(trx, deps, account.id, 'oidc'),
    device: await rememberSignIn(trx, account.id, place),
  });
}

/**
 * The account of an identity linked to none, by the email the provider vouches for. An email the
 * provider does not vouch for is only a claim: it never makes an account nor links one. An
 * identity that shares no email gets none either: an account must be able to confirm its address
 * (portal 5.3). A confirmed account is linked only with its owner's consent, asked by mail.
 */
async function accountFor(
  trx: Kysely<Database>,
  deps: IdentityDeps,
  who: ProviderIdentity,
): Promise<Result<Found, 'oidc_refused' | 'conflict'>> {
  if (!who.email) return refused('the provider shared no email address, and an account needs one to confirm');
  if (!who.emailVerified)
    return refused(
      'the provider did not verify the email address; sign up with your email and a password, or use a provider that verifies it',
    );
  const byEmail = await lockAccountByEmail(trx, who.email);
  if (byEmail?.email_confirmed_at) {
    await offerLink(trx, deps, { id: byEmail.id, email: who.email }, who);
    return ok({ consent_mailed: true });
  }
  // Never confirmed: whoever made it never proved the address the provider vouches for, so it is
  // disowned (password, links, sessions, keys, second factor) before it is confirmed and linked.
  if (byEmail) {
    await disownUnproven(trx, byEmail.id);
    await confirmEmail(trx, byEmail.id, new Date());
  }
  const accountId =
    byEmail?.id ??
    (await createAccount(trx, { email: who.email, password_hash: null, email_confirmed_at: new Date() }));
  if (!accountId) return refuse('conflict', 'The account could not be created; try again.');
  await linkAndTell(trx, deps, accountId, who);
  return ok({ account: accountId });
}
