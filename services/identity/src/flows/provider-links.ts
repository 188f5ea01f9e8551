import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { findAccountById } from '../db/repositories/accounts.js';
import { insertMail } from '../db/repositories/mail-outbox.js';
import { insertLink, insertLinkOffer, listLinks } from '../db/repositories/oidc.js';
import { linkConfirmationMail, providerLinkedMail } from '../domain/mail.js';
import { providerLinkId } from '../domain/provider-link.js';
import { hashToken, newToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { claimMinuteSlotIn } from './throttle.js';

const OFFER_TTL_MS = 30 * 60 * 1000;

/** The provider identity a sign-in vouched for: bound by (issuer, subject), never by email. */
export interface LinkedIdentity {
  issuer: string;
  subject: string;
}

/** The configured name of the provider of an issuer, for mails and the account page. */
function providerOf(deps: IdentityDeps, issuer: string): { id: string; name: string } | undefined {
  const config = deps.oidc.list().find((p) => p.issuer === issuer);
  return config && { id: config.id, name: config.name };
}

/**
 * Links the identity to the account and mails its owner, so a link nobody asked for is seen and
 * can be undone. False when the identity is linked already (nothing is mailed then).
 */
export async function linkAndTell(
  trx: Kysely<Database>,
  deps: IdentityDeps,
  accountId: string,
  who: LinkedIdentity,
): Promise<boolean> {
  if (!(await insertLink(trx, who.issuer, who.subject, accountId))) return false;
  const account = await findAccountById(trx, accountId);
  const name = providerOf(deps, who.issuer)?.name ?? who.issuer;
  if (account?.email)
    await insertMail(trx, providerLinkedMail(account.email, deps.config.PUBLIC_BASE_URL, name));
  return true;
}

/**
 * The identity's verified email names a confirmed account whose owner did not ask for a link: the
 * owner is mailed a link that makes it (confirm-provider-link.ts). At most one such mail a minute
 * per address, so repeated sign-ins cannot flood the owner's mailbox.
 */
export async function offerLink(
  trx: Kysely<Database>,
  deps: IdentityDeps,
  account: { id: string; email: string },
  who: LinkedIdentity,
): Promise<void> {
  if ((await claimMinuteSlotIn(trx, `link:${account.email}`)) > 0) return;
  const token = newToken();
  await insertLinkOffer(trx, {
    token_hash: hashToken(token),
    account_id: account.id,
    issuer: who.issuer,
    subject: who.subject,
    expires_at: new Date(Date.now() + OFFER_TTL_MS),
  });
  const name = providerOf(deps, who.issuer)?.name ?? who.issuer;
  await insertMail(trx, linkConfirmationMail(account.email, deps.config.PUBLIC_BASE_URL, name, token));
}

export interface ProviderLink {
  id: string;
  provider: string | null;
  name: string | null;
  issuer: string;
  linked_at: string;
}

/** The links of an account as its owner sees them (GET /v1/account). */
export async function providerLinksOf(deps: IdentityDeps, accountId: string): Promise<ProviderLink[]> {
  return (await listLinks(deps.db, accountId)).map((link) => {
    const provider = providerOf(deps, link.issuer);
    return {
      id: providerLinkId(link.issuer, link.subject),
      provider: provider?.id ?? null,
      name: provider?.name ?? null,
      issuer: link.issuer,
      linked_at: link.created_at.toISOString(),
    };
  });
}
