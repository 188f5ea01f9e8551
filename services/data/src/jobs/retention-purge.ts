import type { Kysely } from 'kysely';
import type { Logger } from '@meridian/observability';
import { startPeriodic } from '@meridian/runtime';
import type { Database } from '../db/database.js';
import { basesIn, deleteExpiredBatch, withPurgeLock } from '../db/repositories/retention.js';
import {
  mayHaveMore,
  PURGED_TABLES,
  retentionCutoffs,
  type RetentionCutoffs,
  type RetentionSettings,
} from '../domain/retention.js';

export const PURGE_EVERY_MS = 10 * 60_000;
export const PURGE_BATCH_ROWS = 10_000;

export type PurgeReport = { skipped: true } | { skipped: false; deleted: Record<string, number> };

/**
 * Deletes the expired 1s bars and trades in batches of `batchSize` rows. Another replica purging at the
 * same time holds the advisory lock: this one skips (its turn comes in 10 minutes).
 */
export async function purgeExpired(
  db: Kysely<Database>,
  cutoffs: RetentionCutoffs,
  batchSize = PURGE_BATCH_ROWS,
): Promise<PurgeReport> {
  const deleted = await withPurgeLock(db, async (conn) => {
    const counts: Record<string, number> = {};
    for (const table of PURGED_TABLES) {
      counts[table] = 0;
      for (const base of await basesIn(conn, table)) {
        let n: number;
        do {
          n = await deleteExpiredBatch(conn, table, base, cutoffs[table], batchSize);
          counts[table] += n;
        } while (mayHaveMore(n, batchSize));
      }
    }
    return counts;
  });
  return deleted === undefined ? { skipped: true } : { skipped: false, deleted };
}

/** Background task of the service: a purge at start, then every 10 minutes; `stop` waits for the running one. */
export function startRetentionPurge(
  db: Kysely<Database>,
  logger: Logger,
  settings: RetentionSettings,
  now: () => number = Date.now,
) {
  const run = async () => {
    const cutoffs = retentionCutoffs(now(), settings);
    const report = await purgeExpired(db, cutoffs);
    if (report.skipped) logger.debug('retention purge skipped: another replica holds the lock');
    else logger.info({ deleted: report.deleted, cutoffs }, 'retention purge done');
  };
  return startPeriodic(run, PURGE_EVERY_MS, (err) =>
    logger.error({ err }, 'retention purge failed; retrying at the next tick'),
  );
}
