import { ok, refuse, type Result } from '@meridian/contracts';
import { deleteLink, listLinks } from '../db/repositories/oidc.js';
import { providerLinkId } from '../domain/provider-link.js';
import type { IdentityDeps } from '../deps.js';

/**
 * Unlinks one provider identity of the signed-in account, by the id GET /v1/account lists; the
 * identity then signs in nowhere until linked again. Another account's link is not found.
 */
export async function unlinkProvider(
  deps: IdentityDeps,
  accountId: string,
  id: string,
): Promise<Result<{ id: string; unlinked: true }, 'not_found'>> {
  const gone = await deps.db.transaction().execute(async (trx) => {
    const link = (await listLinks(trx, accountId)).find((l) => providerLinkId(l.issuer, l.subject) === id);
    return link !== undefined && (await deleteLink(trx, accountId, link.issuer, link.subject));
  });
  if (!gone) return refuse('not_found', 'This account has no such provider link.');
  return ok({ id, unlinked: true });
}
