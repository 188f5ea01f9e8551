import { startPeriodic } from '@meridian/runtime';
import { expireHolds } from '../db/repositories/bookings.js';
import type { RequestsDeps } from '../deps.js';

/** Unpaid bookings whose hold ran out free their slot; one statement, safe on every replica. */
export function startHoldExpiry(deps: RequestsDeps, everyMs = 30_000): () => Promise<void> {
  const periodic = startPeriodic(
    async () => {
      const expired = await expireHolds(deps.db, new Date());
      if (expired.length > 0) deps.logger.info({ bookings: expired }, 'unpaid bookings expired');
    },
    everyMs,
    (err) => deps.logger.error({ err }, 'expiring unpaid bookings failed'),
  );
  return () => periodic.stop();
}
