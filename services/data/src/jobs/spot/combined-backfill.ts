import type { Kysely } from 'kysely';
import type { Logger } from '@meridian/observability';
import type { Database } from '../../db/database.js';
import { backfillCombinedRollups } from '../../db/repositories/combined-rollups.js';

/**
 * Background task of the service: once at start, the combined roll-ups that 1m bars stored before
 * `combined_rollups` existed lack (a replayed or re-imported bar changes nothing, so ingestion would
 * never write them). One replica runs it; the others skip. `stop` lets the day in progress finish.
 * `singleConnection`: the database is PGlite (see backfillCombinedRollups).
 */
export function startCombinedBackfill(
  db: Kysely<Database>,
  logger: Logger,
  { singleConnection }: { singleConnection: boolean },
) {
  let stopped = false;
  const running = backfillCombinedRollups(db, { singleConnection, stopped: () => stopped }).then(
    (hours) => {
      if (hours === undefined) logger.debug('combined roll-up backfill skipped: another replica runs it');
      else if (hours > 0) logger.info({ hours }, 'combined roll-ups backfilled');
    },
    (err: unknown) => logger.error({ err }, 'combined roll-up backfill failed; it resumes at the next start'),
  );
  return {
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}
