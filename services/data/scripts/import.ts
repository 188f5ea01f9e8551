/**
 * pnpm data:import — backfills recorded files through the ingestion function.
 *
 *   pnpm data:import --kind candles --source kraken --symbol BTC-USDC --file bars.csv[.gz] [--interval 1m]
 *   pnpm data:import --kind option_marks --source deribit --file btc_options_2020-05-21.csv
 *   pnpm data:import --kind trades|funding|mark_prices|observations --source deribit [--symbol X] --file rows.json|rows.csv
 *
 * Files (see importRows): JSON arrays of batch rows; Binance.US and Kraken candle CSVs; Deribit option-chain
 * CSVs; any other CSV whose header names the fields of the batch row. Writes to DATABASE_URL, or to the
 * embedded PGlite under DATA_DIR (.data) that `pnpm start` uses. Exit code 0, or 2 with the reason on stderr.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import {
  catalogFor,
  ingestBatchSchema,
  INGEST_MODES,
  type Catalog,
  type IngestMode,
  type IngestSummary,
} from '@meridian/contracts';
import { processIo, runOrForward, withServiceDatabase, type CommandIo } from '@meridian/db';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { ingest } from '../src/flows/ingest.js';
import { importRows, type ImportKind } from '../src/adapters/parsers/import-rows.js';

const BATCH = 5_000;

export interface ImportOptions {
  kind: ImportKind;
  source: string;
  symbol?: string;
  interval: string;
  file: string;
}

/** A refusal the user can act on: printed as is, exit code 2. */
class ImportRefused extends Error {}

function optionsOf(argv: string[]): ImportOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      kind: { type: 'string' },
      source: { type: 'string' },
      symbol: { type: 'string' },
      interval: { type: 'string', default: '1m' },
      file: { type: 'string' },
    },
  });
  const { kind, source, symbol, interval, file } = values;
  if (!kind || !source || !file) throw new ImportRefused('--kind, --source and --file are required');
  return { kind: kind as ImportKind, source, interval: interval!, file, ...(symbol ? { symbol } : {}) };
}

function readText(file: string): string {
  const raw = readFileSync(file);
  return file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
}

function progressBar(write: (s: string) => void) {
  const started = performance.now();
  return (done: number, total: number) => {
    const width = 30;
    const filled = Math.round((done / Math.max(1, total)) * width);
    const rate = done / Math.max(0.001, (performance.now() - started) / 1000);
    write(
      `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} rows  ${rate.toFixed(0)} rows/s`,
    );
  };
}

/**
 * The catalogue that bounds what may be imported: the one the service runs with (INGEST_MODE, default
 * replay), so an import stores only what the service will serve.
 */
function importCatalog(env: Record<string, string | undefined>): Catalog {
  const mode = env.INGEST_MODE ?? 'replay';
  if (!(INGEST_MODES as readonly string[]).includes(mode))
    throw new ImportRefused(`INGEST_MODE must be one of ${INGEST_MODES.join(', ')}`);
  return catalogFor(mode as IngestMode);
}

/** Reads, checks and ingests one file in batches; the summary of every batch added up. */
export async function importFile(
  db: Kysely<Database>,
  options: ImportOptions,
  catalog: Catalog,
  progress: (done: number, total: number) => void = () => undefined,
): Promise<IngestSummary> {
  const { kind, source, symbol, interval, file } = options;
  let rows: Record<string, unknown>[];
  try {
    rows = importRows(kind, file, readText(file));
  } catch (err) {
    throw new ImportRefused(`${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const total: IngestSummary = { kind, received: 0, inserted: 0, updated: 0, unchanged: 0 };
  for (let i = 0; i < rows.length; i += BATCH) {
    const parsed = ingestBatchSchema.safeParse({
      kind,
      source,
      symbol,
      interval,
      rows: rows.slice(i, i + BATCH),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const at = issue.path[0] === 'rows' ? ` (row ${i + Number(issue.path[1]) + 1})` : '';
      throw new ImportRefused(`${issue.path.join('.')}: ${issue.message}${at}`);
    }
    const result = await ingest(db, parsed.data, catalog);
    if (!result.ok) throw new ImportRefused(result.detail);
    const summary = result.value;
    total.received += summary.received;
    total.inserted += summary.inserted;
    total.updated += summary.updated;
    total.unchanged += summary.unchanged;
    progress(total.received, rows.length);
  }
  return total;
}

/** The command: parses the arguments, opens the database, imports, prints the summary; the exit code. */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  const started = performance.now();
  let options: ImportOptions;
  try {
    options = optionsOf(argv);
  } catch (err) {
    io.stderr(`data:import: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  try {
    const total = await withServiceDatabase<Database, IngestSummary>(io.env, 'data', migrations, (db) =>
      importFile(db, options, importCatalog(io.env), progressBar(io.stderr)),
    );
    const seconds = (performance.now() - started) / 1000;
    const { kind, source, symbol, file } = options;
    io.stderr('\n');
    io.stdout(
      `imported ${file}: ${total.received} ${kind} rows for ${source}${symbol ? ` ${symbol}` : ''} in ${seconds.toFixed(1)} s — ` +
        `${total.inserted} inserted, ${total.updated} updated, ${total.unchanged} unchanged\n`,
    );
    return 0;
  } catch (err) {
    // A refused market (catalogue-bound ingestion) or a bad file: the reason, no stack.
    if (err instanceof ImportRefused) {
      io.stderr(`\ndata:import: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  // The file is named from here: a running `pnpm start` that imports it may run elsewhere.
  process.exitCode = await runOrForward(
    'data:import',
    process.argv.slice(2).map((arg, i, all) => (all[i - 1] === '--file' ? resolve(arg) : arg)),
    main,
  );
