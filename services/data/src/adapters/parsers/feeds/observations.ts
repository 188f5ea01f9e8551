import type { IngestBatchInput, ObservationRow } from '@meridian/contracts';

/** An observation row as a parser writes it: the payload, when any, is a plain object. */
export type ObservationInput = Omit<ObservationRow, 'payload'> & { payload?: Record<string, unknown> };

/** The observations batch of one upstream. */
export const observationBatch = (source: string, rows: ObservationInput[]): IngestBatchInput => ({
  kind: 'observations',
  source,
  rows,
});
