import { Router } from 'express';
import { z } from 'zod';
import { ok, refuse } from '@meridian/contracts';
import { accountOf, envelope, httpProblem, parseInput, sessionAccountOf } from '@meridian/http-kit';
import { findAccountById, setNickname } from '../db/repositories/accounts.js';
import { listApiKeys } from '../db/repositories/api-keys.js';
import { entitlementsOf, nicknameSchema } from '../domain/account.js';
import type { IdentityDeps } from '../deps.js';
import { providerLinksOf } from '../flows/provider-links.js';
import { unlinkProvider } from '../flows/unlink-provider.js';
import { valueOf } from './answer.js';

/** A provider link's id as GET /v1/account lists it (domain/provider-link.ts). */
const linkIdInput = z.object({ id: z.string().regex(/^[0-9a-f]{32}$/, '32 hex digits') });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function accountRoutes(deps: IdentityDeps): Router {
  const router = Router();
  router.get('/v1/account', async (req, res) => {
    const account = await signedIn(deps, sessionAccountOf(req));
    const keys = await listApiKeys(deps.db, account.id);
    const providerLinks = await providerLinksOf(deps, account.id);
    res.json(
      envelope({
        account_id: account.id,
        email: account.email,
        email_confirmed: account.email_confirmed_at !== null,
        nickname: account.nickname,
        plan: account.plan,
        entitlements: entitlementsOf(account.plan, deps.config.RATE_LIMITS, deps.config.KEY_CAPS),
        two_factor: account.totp_state,
        // As the session's verification said (the gateway's assertion): the console shows its link.
        operator: req.caller?.role === 'operator',
        created_at: account.created_at.toISOString(),
        keys: keys.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          created_at: k.created_at.toISOString(),
          last_used_at: iso(k.last_used_at),
          revoked_at: iso(k.revoked_at),
        })),
        provider_links: providerLinks,
      }),
    );
  });
  router.delete('/v1/account/links/:id', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { id } = parseInput(linkIdInput, req.params, 'path');
    res.json(envelope(valueOf(await unlinkProvider(deps, accountId, id))));
  });
  router.put('/v1/account/nickname', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const { nickname } = parseInput(z.object({ nickname: nicknameSchema }), req.body);
    const set = await setNickname(deps.db, accountId, nickname).catch((err: unknown) => {
      // Two accounts racing for one nickname: the unique index decides.
      if ((err as { code?: string }).code === '23505') return false;
      throw err;
    });
    res.json(envelope(valueOf(set ? ok({ nickname }) : refuse('nickname_taken', 'That nickname is taken.'))));
  });
  router.get('/v1/agent/whoami', async (req, res) => {
    const account = await signedIn(deps, accountOf(req));
    const caller = req.caller!;
    res.json(
      envelope({
        account_id: account.id,
        plan: account.plan,
        auth: caller.auth,
        key_id: caller.key_id,
        session_id: caller.session_id,
        email: account.email,
        nickname: account.nickname,
        entitlements: entitlementsOf(account.plan, deps.config.RATE_LIMITS, deps.config.KEY_CAPS),
      }),
    );
  });
  return router;
}

async function signedIn(deps: IdentityDeps, accountId: string) {
  const account = await findAccountById(deps.db, accountId);
  if (!account) throw httpProblem('unauthorized', 'A valid session is required.');
  return account;
}
