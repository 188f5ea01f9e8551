import { Router } from 'express';
import { z } from 'zod';
import { BOOKING_STATUSES } from '@meridian/contracts';
import { envelope, operatorAccountOf, parseInput } from '@meridian/http-kit';
import { bookingsBetween } from '../db/repositories/bookings.js';
import { listRequests } from '../db/repositories/service-requests.js';
import type { RequestsDeps } from '../deps.js';
import { bookingView } from '../flows/read-bookings.js';
import { markRequestByOperator } from '../flows/mark-request.js';
import { valueOf } from './answer.js';

const method = "The requests service's records of service requests and bookings.";
const REQUEST_STATUSES = ['open', 'reviewed', 'closed'] as const;
const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

const requestsQuery = z
  .object({
    status: z.enum(REQUEST_STATUSES).optional(),
    kind: z.enum(['pentest', 'pentest_discussion', 'consultancy']).optional(),
    domain: z.string().trim().toLowerCase().max(253).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();
const markBody = z
  .object({
    status: z.enum(REQUEST_STATUSES),
    note: z.string().trim().min(1).max(2000).optional(),
  })
  .strict();
const idPath = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1),
});
const bookingsQuery = z
  .object({
    from: instant.optional(),
    to: instant.optional(),
    status: z.enum(BOOKING_STATUSES).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(200),
  })
  .strict();

const DAY_MS = 86_400_000;

/**
 * The operator console's service requests and consulting bookings: a session of an operator with
 * TOTP active (operatorAccountOf); marking a request is logged in `operator_actions`.
 */
export function operatorRoutes(deps: RequestsDeps): Router {
  const router = Router();
  router.get('/v1/operator/requests', async (req, res) => {
    operatorAccountOf(req);
    const { limit, ...filter } = parseInput(requestsQuery, req.query, 'query');
    const rows = (await listRequests(deps.db, filter, limit)).map((r) => ({
      id: r.id,
      account_id: r.account_id,
      kind: r.kind,
      domain: r.domain || null,
      detail: r.detail,
      count: r.count,
      first_at: r.first_at.toISOString(),
      last_at: r.last_at.toISOString(),
      status: r.status,
      note: r.operator_note,
      reviewed_by: r.reviewed_by,
    }));
    res.json(envelope(rows, { returned: rows.length }, { method }));
  });
  router.post('/v1/operator/requests/:id', async (req, res) => {
    const operator = operatorAccountOf(req);
    const { id } = parseInput(idPath, req.params, 'path');
    const body = parseInput(markBody, req.body ?? {});
    const marked = valueOf(
      await markRequestByOperator(deps, operator, { id, status: body.status, note: body.note ?? null }),
    );
    res.json(envelope(marked, {}, { method }));
  });
  router.get('/v1/operator/bookings', async (req, res) => {
    operatorAccountOf(req);
    const query = parseInput(bookingsQuery, req.query, 'query');
    const from = query.from ?? new Date(Date.now() - 7 * DAY_MS);
    const to = query.to ?? new Date(from.getTime() + 67 * DAY_MS);
    const rows = (await bookingsBetween(deps.db, { from, to, status: query.status }, query.limit)).map(
      (b) => ({ ...bookingView(b), account_id: b.account_id }),
    );
    res.json(
      envelope(rows, { returned: rows.length, from: from.toISOString(), to: to.toISOString() }, { method }),
    );
  });
  return router;
}
