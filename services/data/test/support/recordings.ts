import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** What the data service recorded from its upstreams (its README says what each file is). */
const RECORDINGS = new URL('../../recordings/', import.meta.url);
/** The recorded week of minute bars the market replay plays (gzipped CSV). */
const MARKET_FIXTURES = new URL('../../fixtures/market/', import.meta.url);

/**
 * The text of a recording, by its path under services/data/recordings/ (`live/...` for the live
 * connectors' hand-written samples): the one way the data tests read one.
 */
export function recording(file: string): string {
  return readFileSync(new URL(file, RECORDINGS), 'utf8');
}

/** The text of a recorded market CSV of services/data/fixtures/market/, unzipped. */
export function marketRecording(file: string): string {
  return gunzipSync(readFileSync(new URL(file, MARKET_FIXTURES))).toString('utf8');
}
