import { Router } from 'express';
import { z } from 'zod';
import { operatorLogPage, operatorLogQuery } from '@meridian/db';
import {
  cursorCodec,
  envelope,
  httpProblem,
  operatorAccountOf,
  parseInput,
  type CursorCodec,
} from '@meridian/http-kit';
import { operatorCreditEntries, type GrantFilters } from '../db/repositories/operator-grants.js';
import type { BillingDeps } from '../deps.js';

const LOG = 'billing';
const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const grantsFilters = z
  .object({
    account: z.uuid().optional(),
    operator: z.string().trim().min(1).max(200).optional(),
    since: instant.optional(),
    until: instant.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().min(1).max(1000).optional(),
  })
  .strict();

/**
 * What the operator console reads of billing: its operator log, and the ledger's grants and
 * revocations of credit by operators. Both newest first, paged with signed cursors bound to their
 * filters, for a session of an operator (operatorAccountOf).
 */
export function operatorLogRoutes(deps: BillingDeps): Router {
  const router = Router();
  const cursors = cursorCodec(deps.config.cursorKey, 'operator log');
  const logQuery = operatorLogQuery(LOG, cursors);
  router.get('/v1/operator/billing/log', async (req, res) => {
    operatorAccountOf(req);
    const filters = parseInput(logQuery, req.query, 'query');
    const { rows, next_cursor } = await operatorLogPage(deps.db, LOG, cursors, filters);
    res.json(
      envelope(rows, { returned: rows.length, next_cursor }, { method: "Read from billing's operator log." }),
    );
  });
  router.get('/v1/operator/billing/grants', async (req, res) => {
    operatorAccountOf(req);
    const filters = grantsQuery(req.query, cursors);
    const found = await operatorCreditEntries(deps.db, filters);
    const rows = found.slice(0, filters.limit).map((e) => ({
      id: e.id,
      account_id: e.account_id,
      kind: e.reason === 'admin_grant' ? 'grant' : 'revoke',
      amount_atomic: Math.abs(e.delta_atomic),
      reason: e.ref ?? '',
      actor: e.actor,
      operator_account_id: e.actor.startsWith('operator:') ? e.actor.slice('operator:'.length) : null,
      at: e.created_at.toISOString(),
    }));
    const last = rows.at(-1);
    const next_cursor =
      found.length > filters.limit && last ? cursors.sign({ ...boundOf(filters), b: last.id }) : null;
    const method = "Read from billing's ledger: its admin_grant and admin_revoke entries.";
    res.json(envelope(rows, { returned: rows.length, next_cursor }, { method }));
  });
  return router;
}

function grantsQuery(query: unknown, cursors: CursorCodec): GrantFilters {
  const { cursor, ...filters } = parseInput(grantsFilters, query, 'query');
  if (cursor === undefined) return filters;
  const { b, ...bound } = cursors.verify(cursor) ?? {};
  if (typeof b !== 'number' || JSON.stringify(bound) !== JSON.stringify(boundOf(filters))) {
    const message = 'not a cursor this list gave with these filters';
    throw httpProblem('validation_failed', `query.cursor: ${message}`, {
      errors: [{ path: 'query.cursor', message }],
    });
  }
  return { ...filters, before: b };
}

/** What a grants cursor is bound to: its list and its filters. */
function boundOf(f: GrantFilters) {
  return {
    s: 'billing grants',
    a: f.account ?? null,
    o: f.operator ?? null,
    f: f.since?.toISOString() ?? null,
    u: f.until?.toISOString() ?? null,
  };
}
