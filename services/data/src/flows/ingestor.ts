import type { Kysely } from 'kysely';
import type { Catalog, IngestBatch, IngestSummary } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { ingest, ingestAll, type IngestAllResult, type IngestResult } from './ingest.js';

export type IngestListener = (batch: IngestBatch, summary: IngestSummary) => void;

/**
 * The ingestion function bound to this process's database, telling listeners (the reference-price
 * cache, the demo cache) when a batch changed something, so that no cached answer outlives its data.
 */
export interface Ingestor {
  ingest(batch: IngestBatch): Promise<IngestResult>;
  /** The batches of one upstream answer, all or none (flows/ingest.ts, ingestAll). */
  ingestAll(batches: IngestBatch[]): Promise<IngestAllResult>;
  onChange(listener: IngestListener): void;
}

/** `catalog`: the running mode's (catalogFor(INGEST_MODE)), which bounds what may be stored. */
export function createIngestor(db: Kysely<Database>, catalog: Catalog): Ingestor {
  const listeners: IngestListener[] = [];
  const tell = (batch: IngestBatch, summary: IngestSummary) => {
    if (summary.inserted + summary.updated > 0) for (const l of listeners) l(batch, summary);
  };
  return {
    async ingest(batch) {
      const result = await ingest(db, batch, catalog);
      if (result.ok) tell(batch, result.value);
      return result;
    },
    async ingestAll(batches) {
      const result = await ingestAll(db, batches, catalog);
      if (result.ok) batches.forEach((b, i) => tell(b, result.value[i]!));
      return result;
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

/** Ingests a batch the service itself produced (a replay): a refusal there is a bug, thrown. */
export async function ingestOwn(ingestor: Ingestor, batch: IngestBatch): Promise<IngestSummary> {
  const result = await ingestor.ingest(batch);
  if (!result.ok) throw new Error(`own batch refused: ${result.detail}`);
  return result.value;
}
