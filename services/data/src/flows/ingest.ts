import type { Kysely, Transaction } from 'kysely';
import {
  ok,
  refuse,
  type Catalog,
  type IngestBatch,
  type IngestSummary,
  type Refusal,
} from '@meridian/contracts';
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
 * catalogue of the running mode does not list is refused (see catalogueRefusal): it could be stored but never served.
 */
export async function ingest(
  db: Kysely<Database>,
  batch: IngestBatch,
  catalog: Catalog,
): Promise<IngestResult> {
  const all = await ingestAll(db, [batch], catalog);
  return all.ok ? ok(all.value[0]!) : all;
}

export type IngestAllResult = { ok: true; value: IngestSummary[] } | IngestRefusal;

/**
 * Several batches of one upstream answer (a live connector's poll) in one transaction: all are
 * written or, when one is refused or fails, none is, so a poll never leaves half an answer stored.
 * Candle batches take their market locks in one order (source, symbol), so two writers of the same
 * markets (two replicas polling one venue) wait for each other instead of deadlocking.
 */
export async function ingestAll(
  db: Kysely<Database>,
  batches: IngestBatch[],
  catalog: Catalog,
): Promise<IngestAllResult> {
  for (const batch of batches) {
    const refusal = catalogueRefusal(catalog, batch);
    if (refusal)
      return { ...refuse('validation_failed', `${refusal.path}: ${refusal.message}`), errors: [refusal] };
  }
  const order = batches.map((batch, i) => ({ batch, i })).sort((a, b) => lockOrder(a.batch, b.batch));
  const summaries = await db.transaction().execute(async (trx) => {
    const out: IngestSummary[] = [];
    for (const { batch, i } of order) out[i] = await applyBatch(trx, batch);
    return out;
  });
  return ok(summaries);
}

function lockOrder(a: IngestBatch, b: IngestBatch): number {
  const key = (x: IngestBatch) =>
    x.kind === 'candles' ? `0:${x.source}:${x.symbol}:${x.interval}` : `1:${x.kind}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

async function applyBatch(trx: Transaction<Database>, batch: IngestBatch): Promise<IngestSummary> {
  if (batch.kind === 'candles') await lockMarketRollups(trx, batch.source, batch.symbol);
  const { inserted, updated } = await upsertBatch(trx, batch);
  if (batch.kind === 'candles' && batch.interval === '1m' && inserted + updated > 0) {
    const times = batch.rows.map((r) => Date.parse(r.ts));
    await refreshRollups(trx, batch.source, batch.symbol, times);
    await refreshCombinedRollups(trx, baseOf(batch.symbol), times);
  }
  const received = batch.rows.length;
  return { kind: batch.kind, received, inserted, updated, unchanged: received - inserted - updated };
}
