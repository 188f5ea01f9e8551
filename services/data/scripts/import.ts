/**
 * pnpm data:import — backfills recorded files through the ingestion function.
 *
 *   pnpm data:import --kind candles --source kraken --symbol BTC-USDC --file bars.csv[.gz] [--interval 1m]
 *   pnpm data:import --kind trades|option_marks|funding|mark_prices|observations --source deribit [--symbol X] --file rows.json|rows.csv
 *
 * Candle CSV: Binance.US (`open_time,open,high,low,close,volume` with a header), Kraken
 * (`unix_seconds,open,high,low,close,volume,trade_count`, no header), or any CSV whose header names the
 * fields of the batch row (ts, open, ...). JSON: an array of rows of the kind (see ingestBatchSchema).
 * Writes to DATABASE_URL, or to the embedded PGlite under DATA_DIR (.data) that `pnpm start` uses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { ingestBatchSchema, type IngestSummary } from '@meridian/contracts';
import { migrateToLatest, openDatabase, openPGlite, type DatabaseTarget } from '@meridian/db';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { ingest } from '../src/ingest/ingest.js';
import { parseBars } from '../src/replay/recorded-market.js';

const BATCH = 5_000;

const { values } = parseArgs({
  options: {
    kind: { type: 'string' },
    source: { type: 'string' },
    symbol: { type: 'string' },
    interval: { type: 'string', default: '1m' },
    file: { type: 'string' },
  },
});

function fail(message: string): never {
  process.stderr.write(`data:import: ${message}\n`);
  process.exit(2);
}

function readText(file: string): string {
  const raw = readFileSync(file);
  return file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
}

function csvRows(text: string): Record<string, unknown>[] {
  const [header, ...lines] = text.split('\n').filter((l) => l.trim() !== '');
  const names = header!.split(',').map((h) => h.trim());
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(
      names.map((n, i) => {
        const v = cells[i]?.trim() ?? '';
        return [n, v === '' ? null : Number.isNaN(Number(v)) ? v : Number(v)];
      }),
    );
  });
}

function rowsOf(kind: string, file: string): Record<string, unknown>[] {
  const text = readText(file);
  if (file.replace(/\.gz$/, '').endsWith('.json')) return JSON.parse(text) as Record<string, unknown>[];
  if (kind === 'candles') {
    const first = text.slice(0, 200);
    const format = first.startsWith('open_time')
      ? 'binanceus'
      : /^\d{9,10},/.test(first)
        ? 'kraken'
        : undefined;
    if (format) return parseBars(text, format).map((b) => ({ ...b, ts: new Date(b.ts).toISOString() }));
  }
  return csvRows(text);
}

function progress(done: number, total: number, started: number): void {
  const width = 30;
  const filled = Math.round((done / Math.max(1, total)) * width);
  const rate = done / Math.max(0.001, (performance.now() - started) / 1000);
  process.stderr.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} rows  ${rate.toFixed(0)} rows/s`,
  );
}

async function main(): Promise<void> {
  const { kind, source, symbol, interval, file } = values;
  if (!kind || !source || !file) fail('--kind, --source and --file are required');
  const rows = rowsOf(kind, file);
  const target: DatabaseTarget = process.env.DATABASE_URL
    ? { kind: 'pg', url: process.env.DATABASE_URL }
    : { kind: 'pglite', pglite: await openPGlite(join(process.env.DATA_DIR ?? '.data', 'pglite')) };
  const database = openDatabase<Database>(target, 'data');
  await migrateToLatest(database.db, 'data', migrations);
  const total: IngestSummary = { kind, received: 0, inserted: 0, updated: 0, unchanged: 0 };
  const started = performance.now();
  try {
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
        fail(`\n${issue.path.join('.')}: ${issue.message}${at}`);
      }
      const summary = await ingest(database.db, parsed.data);
      total.received += summary.received;
      total.inserted += summary.inserted;
      total.updated += summary.updated;
      total.unchanged += summary.unchanged;
      progress(total.received, rows.length, started);
    }
  } finally {
    await database.close();
    if (target.kind === 'pglite') await target.pglite.close();
  }
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write('\n');
  process.stdout.write(
    `imported ${file}: ${total.received} ${kind} rows for ${source}${symbol ? ` ${symbol}` : ''} in ${seconds.toFixed(1)} s — ` +
      `${total.inserted} inserted, ${total.updated} updated, ${total.unchanged} unchanged\n`,
  );
}

await main();
