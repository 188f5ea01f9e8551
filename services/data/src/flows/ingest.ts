import type { Kysely } from 'kysely';
import { ok, refuse, type IngestBatch, type IngestSummary, type Refusal } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { refreshCombinedRollups } from '../db/repositories/combined-rollups.js';
import { lockMarketRollups, upsertBatch } from '../db/repositories/ingested-rows.js';
import { refreshRollups } from '../db/repositories/rollups.js';
import { catalogueRefusal, type BatchRefusal } from '../domain/catalogue-bound.js';
import { baseOf } from '../domain/spot/market.js';

/** A refused batch names the field at fault, as the `errors` of a 400 problem do. */
export type IngestRefusal = Refusal<'validation_failed'> & { errors: BatchRefusal[] };
export type IngestResult = { ok: true; value: IngestSummary } | IngestRefusal;

/**
 * The one ingestion interface: every writer (replay, importer, connectors, the NATS subject) calls
 * it. Idempotent on (source, key, timestamp): a row already stored with the same values is left
 * alone, a corrected row replaces the stored one, and a replayed batch changes nothing. A market the
 * catalogue does not list is refused (see catalogueRefusal): it could be stored but never served.
 */
export async function ingest(db: Kysely<Database>, batch: IngestBatch): Promise<IngestResult> {
  const refusal = catalogueRefusal(batch);
  if (refusal)
    return { ...refuse('validation_failed', `${refusal.path}: ${refusal.message}`), errors: [refusal] };
  const summary = await db.transaction().execute(async (trx) => {
    if (batch.kind === 'candles') await lockMarketRollups(trx, batch.source, batch.symbol);
    const { inserted, updated } = await upsertBatch(trx, batch);
    if (batch.kind === 'candles' && batch.interval === '1m' && inserted + updated > 0) {
      const times = batch.rows.map((r) => Date.parse(r.ts));
      await refreshRollups(trx, batch.source, batch.symbol, times);
      await refreshCombinedRollups(trx, baseOf(batch.symbol), times);
    }
    const received = batch.rows.length;
    return { kind: batch.kind, received, inserted, updated, unchanged: received - inserted - updated };
  });
  return ok(summary);
}
