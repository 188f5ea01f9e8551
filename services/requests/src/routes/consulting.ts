import { Router } from 'express';
import { bookingBodySchema, slotsQuerySchema } from '@meridian/contracts';
import {
  envelope,
  httpProblem,
  idempotencyKeyOf,
  parseInput,
  parseQuery,
  sessionAccountOf,
} from '@meridian/http-kit';
import type { RequestsDeps } from '../deps.js';
import { bookConsultation } from '../flows/book-consultation.js';
import { MAX_WINDOW_DAYS, bookingView, readBookings, readSlots } from '../flows/read-bookings.js';
import { valueOf } from './answer.js';

const DAY_MS = 86_400_000;
const method = "Read from the requests service's bookings and its configured consulting hours (UTC).";

/** GET, POST /v1/consulting/bookings and GET /v1/consulting/slots (portal 4.6). */
export function consultingRoutes(deps: RequestsDeps): Router {
  const router = Router();
  router.get('/v1/consulting/slots', async (req, res) => {
    sessionAccountOf(req);
    const query = parseQuery(slotsQuerySchema, req.query);
    const from = query.from ?? new Date();
    const to = query.to ?? new Date(from.getTime() + 14 * DAY_MS);
    if (to <= from) throw httpProblem('validation_failed', 'to: must be after from');
    if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS)
      throw httpProblem('validation_failed', `to: a window spans at most ${MAX_WINDOW_DAYS} days`);
    res.json(
      envelope(
        await readSlots(deps, from, to),
        { from: from.toISOString(), to: to.toISOString() },
        { method },
      ),
    );
  });
  router.get('/v1/consulting/bookings', async (req, res) => {
    const accountId = sessionAccountOf(req);
    res.json(envelope(await readBookings(deps, accountId), {}, { method }));
  });
  router.post('/v1/consulting/bookings', async (req, res) => {
    const accountId = sessionAccountOf(req);
    const body = parseInput(bookingBodySchema, req.body);
    const key = idempotencyKeyOf(req.get('idempotency-key'));
    const { booking, replayed } = valueOf(await bookConsultation(deps, accountId, body, key));
    if (replayed) res.set('Idempotent-Replayed', 'true');
    res.status(replayed ? 200 : 201).json(envelope(bookingView(booking), {}, { method }));
  });
  return router;
}
