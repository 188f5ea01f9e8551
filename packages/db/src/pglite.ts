import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import { parseInt8 } from './database.js';

/**
 * The embedded database of the all-in-one mode: real Postgres compiled to WebAssembly, persisted
 * under `dataDir` so that a second start reuses what the first stored. Omit `dataDir` for memory.
 */
export async function openPGlite(dataDir?: string): Promise<PGlite> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const pglite = new PGlite(dataDir, { parsers: { [types.INT8]: parseInt8 } });
  await pglite.waitReady;
  return pglite;
}
