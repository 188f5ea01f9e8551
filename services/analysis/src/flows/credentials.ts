import { randomUUID } from 'node:crypto';
import { ok, refuse, type Result } from '@meridian/contracts';
import type { AnalysisRefusal } from '../domain/refusals.js';
import { domainById } from '../db/repositories/domains.js';
import {
  credentialsOf,
  deleteCredential,
  insertCredential,
  type CredentialRow,
} from '../db/repositories/credentials.js';
import { seal } from '@meridian/runtime';
import type { AnalysisDeps } from '../deps.js';
import { ownDomain } from './domains.js';

/** A credential as its owner sees it: never the secret, not even a part of it. */
export function credentialView(row: CredentialRow, hostname: string) {
  return {
    id: row.id,
    domain: hostname,
    kind: row.kind,
    label: row.label,
    username: row.username,
    login_url: row.login_url,
    secret: '********',
    secret_set: true,
    created_at: row.created_at.toISOString(),
  };
}

export interface CredentialAsked {
  domain: string;
  kind: 'form';
  label?: string | undefined;
  username: string;
  login_url?: string | undefined;
  secret: string;
}

/** Stores a credential of the caller's domain, its secret sealed with AES-256-GCM. */
export async function addCredential(
  deps: AnalysisDeps,
  accountId: string,
  asked: CredentialAsked,
  now = new Date(),
): Promise<Result<ReturnType<typeof credentialView>, AnalysisRefusal>> {
  const owned = await ownDomain(deps, accountId, asked.domain);
  if (!owned.ok) return owned;
  if ((await credentialsOf(deps.db, accountId, owned.value.id)).length >= 20)
    return refuse('conflict', 'A domain holds at most 20 credentials; delete one first.');
  const id = randomUUID();
  const row: CredentialRow = {
    id,
    account_id: accountId,
    domain_id: owned.value.id,
    kind: asked.kind,
    label: asked.label?.trim() || asked.kind,
    username: asked.username,
    login_url: asked.login_url ?? null,
    secret_sealed: seal(deps.credentialsKey, asked.secret, `${accountId}:${id}`),
    created_at: now,
  };
  await insertCredential(deps.db, row);
  return ok(credentialView(row, owned.value.hostname));
}

export async function listCredentials(deps: AnalysisDeps, accountId: string, domain: string | undefined) {
  let domainId: string | undefined;
  if (domain) {
    const owned = await ownDomain(deps, accountId, domain);
    if (!owned.ok) return owned;
    domainId = owned.value.id;
  }
  const rows = await credentialsOf(deps.db, accountId, domainId);
  const names = new Map<string, string>();
  for (const r of rows)
    if (!names.has(r.domain_id))
      names.set(r.domain_id, (await domainById(deps.db, r.domain_id))?.hostname ?? '');
  return ok(rows.map((r) => credentialView(r, names.get(r.domain_id)!)));
}

export async function removeCredential(
  deps: AnalysisDeps,
  accountId: string,
  id: string,
): Promise<Result<null, AnalysisRefusal>> {
  if (!(await deleteCredential(deps.db, accountId, id)))
    return refuse('not_found', `No credential ${id} in this account.`);
  return ok(null);
}
