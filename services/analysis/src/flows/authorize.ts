import { randomUUID } from 'node:crypto';
import { ok, refuse, type Result } from '@meridian/contracts';
import type { AnalysisRefusal } from '../domain/refusals.js';
import {
  activeAuthorization,
  replaceAuthorization,
  revokeAuthorization,
  type AuthorizationRow,
} from '../db/repositories/authorizations.js';
import { parseScope } from '../domain/authorization-scope.js';
import type { AnalysisDeps } from '../deps.js';
import { ownDomain } from './domains.js';

export function authorizationView(row: AuthorizationRow, hostname: string) {
  return {
    id: row.id,
    domain: hostname,
    status: row.revoked_at ? 'revoked' : row.expires_at.getTime() <= Date.now() ? 'expired' : 'active',
    attested_by: row.attested_by,
    statement: row.statement,
    scope: row.scope,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

export interface AuthorizeAsked {
  domain: string;
  attestation?: { owner: boolean; name: string; statement?: string | undefined } | undefined;
  days?: number | undefined;
  scope?: string[] | undefined;
}

export const DEFAULT_STATEMENT =
  'I own this domain or am authorised by its owner to commission active security testing of it.';

/**
 * Authorizes active testing of the caller's verified domain for `days` (default 30, at most
 * AUTHORIZATION_MAX_DAYS). The attestation must be given (owner: true and a name): 400 otherwise,
 * as for an unverified domain. Authorizing again replaces the live one.
 */
export async function authorize(
  deps: AnalysisDeps,
  accountId: string,
  asked: AuthorizeAsked,
  now = new Date(),
): Promise<Result<ReturnType<typeof authorizationView>, AnalysisRefusal>> {
  const owned = await ownDomain(deps, accountId, asked.domain);
  if (!owned.ok) return owned;
  if (!owned.value.verified_at)
    return refuse(
      'domain_not_verified',
      `${owned.value.hostname} is not verified; verify it before authorizing active tests.`,
    );
  if (asked.attestation?.owner !== true || !asked.attestation.name.trim())
    return refuse(
      'attestation_required',
      'attestation: give {owner: true, name} to attest that you own the domain or act for its owner.',
    );
  const scope = parseScope(asked.scope ?? [], owned.value.hostname);
  if (!scope.ok) return scope;
  const days = asked.days ?? 30;
  if (days > deps.config.AUTHORIZATION_MAX_DAYS)
    return refuse('validation_failed', `days: at most ${deps.config.AUTHORIZATION_MAX_DAYS}`);
  const row: AuthorizationRow = {
    id: randomUUID(),
    account_id: accountId,
    domain_id: owned.value.id,
    attested_by: asked.attestation.name.trim(),
    statement: asked.attestation.statement?.trim() || DEFAULT_STATEMENT,
    scope: { entries: scope.value, max_requests: deps.config.SCANNER_ACTIVE_MAX_REQUESTS },
    created_at: now,
    expires_at: new Date(now.getTime() + days * 86_400_000),
    revoked_at: null,
  };
  await deps.db.transaction().execute((trx) => replaceAuthorization(trx, row));
  return ok(authorizationView(row, owned.value.hostname));
}

export async function readAuthorization(
  deps: AnalysisDeps,
  accountId: string,
  domain: string,
  now = new Date(),
) {
  const owned = await ownDomain(deps, accountId, domain);
  if (!owned.ok) return owned;
  const row = await activeAuthorization(deps.db, owned.value.id, now);
  return ok(row ? authorizationView(row, owned.value.hostname) : null);
}

export async function revoke(deps: AnalysisDeps, accountId: string, domain: string, now = new Date()) {
  const owned = await ownDomain(deps, accountId, domain);
  if (!owned.ok) return owned;
  const row = await revokeAuthorization(deps.db, owned.value.id, now);
  if (!row) return refuse('not_found', `No active authorization for ${owned.value.hostname}.`);
  return ok(authorizationView(row, owned.value.hostname));
}
