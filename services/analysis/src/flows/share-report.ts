import { RPC, ok, refuse, type AccountEmailReply, type Report, type Result } from '@meridian/contracts';
import type { AnalysisRefusal } from '../domain/refusals.js';
import { ownedReport, reportOfRun } from '../db/repositories/reports.js';
import { findLinkByTokenHash, insertLink, revokeLiveLink } from '../db/repositories/share-links.js';
import {
  SHARE_TOKEN,
  hashShareToken,
  mintShareToken,
  shareVerdict,
  type Audience,
  type ShareVerdict,
  type Viewer,
} from '../domain/share.js';
import type { AnalysisDeps } from '../deps.js';

export interface MintedLink {
  url: string;
  /** Shown once: only its hash is kept. */
  token: string;
  audience: Audience['kind'];
  emails: string[];
  expires_at: string | null;
}

/**
 * Mints the share link of a finished report of the caller's (portal 4.3), revoking the one before:
 * a report has one live link, and a new one is how its audience or expiry changes.
 */
export async function mintShareLink(
  deps: AnalysisDeps,
  accountId: string,
  runId: string,
  share: { audience: Audience; expires_at: Date | null },
  now = new Date(),
): Promise<Result<MintedLink, AnalysisRefusal>> {
  const owned = await ownedReport(deps.db, runId, accountId);
  if (!owned) return refuse('not_found', 'No report of yours has this id.');
  if (!owned.report) return refuse('conflict', 'The run has not finished; share its report once it has.');
  if (share.expires_at && share.expires_at <= now)
    return refuse('validation_failed', 'expires_at: must be in the future');
  const token = mintShareToken();
  await deps.db.transaction().execute(async (trx) => {
    await revokeLiveLink(trx, runId, now);
    await insertLink(
      trx,
      { token_hash: hashShareToken(token), run_id: runId, account_id: accountId, ...share },
      now,
    );
  });
  return ok({
    url: `${deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/v1/analysis/shared/${token}`,
    token,
    audience: share.audience.kind,
    emails: share.audience.kind === 'emails' ? share.audience.emails : [],
    expires_at: share.expires_at?.toISOString() ?? null,
  });
}

/** Revokes the live share link of the caller's report at once. */
export async function revokeShareLink(
  deps: AnalysisDeps,
  accountId: string,
  runId: string,
  now = new Date(),
): Promise<Result<{ revoked: true }, AnalysisRefusal>> {
  if (!(await ownedReport(deps.db, runId, accountId)))
    return refuse('not_found', 'No report of yours has this id.');
  if (!(await revokeLiveLink(deps.db, runId, now)))
    return refuse('not_found', 'This report has no live share link.');
  return ok({ revoked: true as const });
}

export type SharedRead =
  { verdict: 'readable'; report: Report } | { verdict: Exclude<ShareVerdict, 'readable'> | 'not_found' };

/**
 * The report behind a share token, if the token's audience admits the viewer now. The token is
 * the only credential; a viewer's email is asked of identity only for a link shared with emails.
 */
export async function readShared(
  deps: AnalysisDeps,
  token: string,
  viewerAccountId: string | null,
  now = new Date(),
): Promise<SharedRead> {
  if (!SHARE_TOKEN.test(token)) return { verdict: 'not_found' };
  const link = await findLinkByTokenHash(deps.db, hashShareToken(token));
  if (!link) return { verdict: 'not_found' };
  const viewer = viewerAccountId ? await viewerOf(deps, viewerAccountId, link.audience) : null;
  const verdict = shareVerdict(link, viewer, now);
  if (verdict !== 'readable') return { verdict };
  const report = await reportOfRun(deps.db, link.run_id);
  return report ? { verdict, report } : { verdict: 'not_found' };
}

async function viewerOf(deps: AnalysisDeps, accountId: string, audience: Audience): Promise<Viewer> {
  if (audience.kind !== 'emails') return { account_id: accountId, email: null };
  const reply = await deps.bus.request<AccountEmailReply>(RPC.identityAccountEmail, {
    account_id: accountId,
  });
  return { account_id: accountId, email: reply.ok ? reply.data.email : null };
}
