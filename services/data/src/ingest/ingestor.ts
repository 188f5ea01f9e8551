import type { Kysely } from 'kysely';
import type { IngestBatch, IngestSummary } from '@meridian/contracts';
import type { Database } from '../db/database.js';
import { ingest } from './ingest.js';

export type IngestListener = (batch: IngestBatch, summary: IngestSummary) => void;

/**
 * The ingestion function bound to this process's database, telling listeners (the reference-price
 * cache, the demo cache) when a batch changed something, so that no cached answer outlives its data.
 */
export interface Ingestor {
  ingest(batch: IngestBatch): Promise<IngestSummary>;
  onChange(listener: IngestListener): void;
}

export function createIngestor(db: Kysely<Database>): Ingestor {
  const listeners: IngestListener[] = [];
  return {
    async ingest(batch) {
      const summary = await ingest(db, batch);
      if (summary.inserted + summary.updated > 0) for (const l of listeners) l(batch, summary);
      return summary;
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
