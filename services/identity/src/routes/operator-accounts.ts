import { Router } from 'express';
import { z } from 'zod';
import { operatorLogPage, operatorLogQuery } from '@meridian/db';
import { cursorCodec, envelope, operatorAccountOf, parseInput } from '@meridian/http-kit';
import { accountNames, accountOfEmail } from '../db/repositories/account-names.js';
import type { IdentityDeps } from '../deps.js';

const LOG = 'identity';
/** As many accounts as one page of a console list names. */
const MAX_IDS = 100;
const accountsQuery = z.union([
  z
    .object({
      ids: z
        .string()
        .transform((s) => [...new Set(s.split(',').map((id) => id.trim()))])
        .pipe(z.array(z.uuid()).min(1).max(MAX_IDS)),
    })
    .strict(),
  z.object({ email: z.string().trim().toLowerCase().pipe(z.email()) }).strict(),
]);

/**
 * What the operator console reads of identity, for a session of an operator: who accounts are
 * (email and nickname, so the console never shows a bare id; or the account of an email, which an
 * operator types to grant credit), and identity's operator log (the
 * operator role granted and revoked), newest first, filtered and paged with signed cursors.
 */
export function operatorAccountRoutes(deps: IdentityDeps): Router {
  const router = Router();
  const cursors = cursorCodec(deps.config.INTERNAL_AUTH_SECRET, 'identity operator log');
  const logQuery = operatorLogQuery(LOG, cursors);
  router.get('/v1/operator/accounts', async (req, res) => {
    operatorAccountOf(req);
    const query = parseInput(accountsQuery, req.query, 'query');
    const rows =
      'ids' in query ? await accountNames(deps.db, query.ids) : await accountOfEmail(deps.db, query.email);
    const asked = 'ids' in query ? query.ids.length : 1;
    const method = "Read from identity's accounts; an id or email that names no account is left out.";
    res.json(envelope(rows, { returned: rows.length, asked }, { method }));
  });
  router.get('/v1/operator/accounts/log', async (req, res) => {
    operatorAccountOf(req);
    const filters = parseInput(logQuery, req.query, 'query');
    const { rows, next_cursor } = await operatorLogPage(deps.db, LOG, cursors, filters);
    const method = "Read from identity's operator log (the operator role granted and revoked).";
    res.json(envelope(rows, { returned: rows.length, next_cursor }, { method }));
  });
  return router;
}
