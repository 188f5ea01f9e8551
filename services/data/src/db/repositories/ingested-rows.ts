import { sql, type Kysely, type Transaction } from 'kysely';
import type { IngestBatch } from '@meridian/contracts';
import type { Database } from '../database.js';
import { splitSymbol } from '../../domain/spot/market.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Rows per INSERT: well under Postgres' 65,535 bind parameters for the widest table (16 columns). */
const CHUNK = 2000;

interface Upsert {
  table: keyof Database;
  key: string[];
  values: Record<string, unknown>[];
}

/**
 * Holds the market's roll-up lock until the transaction ends: two batches of one market recompute the
 * same roll-up buckets, each from the bars it can see, and without it the later commit would write an
 * aggregate missing the other's bars.
 */
export async function lockMarketRollups(trx: Transaction<Database>, source: string, symbol: string) {
  await sql`select pg_advisory_xact_lock(hashtext(${source} || ':' || ${symbol}))`.execute(trx);
}

/**
 * Writes a batch's rows into its table, keyed on (source, key, timestamp): a row already stored with
 * the same values is left alone, a corrected row replaces the stored one.
 */
export async function upsertBatch(
  trx: Db,
  batch: IngestBatch,
): Promise<{ inserted: number; updated: number }> {
  const upsert = toUpsert(batch);
  let inserted = 0;
  let updated = 0;
  for (let i = 0; i < upsert.values.length; i += CHUNK) {
    const counts = await upsertChunk(trx, upsert, upsert.values.slice(i, i + CHUNK));
    inserted += counts.inserted;
    updated += counts.updated;
  }
  return { inserted, updated };
}

/** An option mark row by row, the columns named one by one so nothing else reaches the table. */
function optionMarksUpsert(batch: Extract<IngestBatch, { kind: 'option_marks' }>): Upsert {
  return {
    table: 'option_marks',
    key: ['source', 'instrument', 'ts'],
    values: batch.rows.map((r) => ({
      source: batch.source,
      instrument: r.instrument,
      ts: r.ts,
      underlying: r.underlying,
      expiry: r.expiry,
      strike: r.strike,
      option_type: r.option_type,
      underlying_px: r.underlying_px,
      mark_price_usd: r.mark_price_usd,
      mark_iv: r.mark_iv,
      delta: r.delta,
      gamma: r.gamma,
      vega: r.vega,
      theta: r.theta,
      open_interest: r.open_interest,
    })),
  };
}

function toUpsert(batch: IngestBatch): Upsert {
  switch (batch.kind) {
    case 'candles': {
      const market = { source: batch.source, symbol: batch.symbol, ...splitSymbol(batch.symbol) };
      return {
        table: batch.interval === '1s' ? 'candles_1s' : 'candles_1m',
        key: ['source', 'symbol', 'ts'],
        values: batch.rows.map((r) => ({
          ...market,
          ts: r.ts,
          open: r.open,
          high: r.high,
          low: r.low,
          close: r.close,
          volume: r.volume,
          trade_count: r.trade_count ?? null,
        })),
      };
    }
    case 'trades': {
      const market = { source: batch.source, symbol: batch.symbol, ...splitSymbol(batch.symbol) };
      return {
        table: 'trades',
        key: ['source', 'symbol', 'trade_id'],
        values: batch.rows.map((r) => ({
          ...market,
          trade_id: r.trade_id,
          ts: r.ts,
          price: r.price,
          size: r.size,
          taker_side: r.taker_side,
        })),
      };
    }
    case 'option_marks':
      return optionMarksUpsert(batch);
    case 'funding':
      return {
        table: 'funding_rates',
        key: ['source', 'symbol', 'ts'],
        values: batch.rows.map((r) => ({
          source: batch.source,
          symbol: batch.symbol,
          ts: r.ts,
          funding_rate: r.funding_rate,
          interval_hours: r.interval_hours ?? null,
        })),
      };
    case 'mark_prices':
      return {
        table: 'mark_prices',
        key: ['source', 'symbol', 'ts'],
        values: batch.rows.map((r) => ({
          source: batch.source,
          symbol: batch.symbol,
          ts: r.ts,
          mark_price: r.mark_price,
          index_price: r.index_price ?? null,
        })),
      };
    case 'observations':
      return {
        table: 'observations',
        key: ['source', 'key', 'metric', 'ts'],
        values: batch.rows.map((r) => ({
          source: batch.source,
          key: r.key,
          metric: r.metric,
          ts: r.ts,
          value: r.value,
          payload: JSON.stringify(r.payload),
        })),
      };
  }
}

/** Postgres refuses to update one row twice in a statement: within a batch the last row of a key wins. */
function lastPerKey(rows: Record<string, unknown>[], key: string[]): Record<string, unknown>[] {
  const byKey = new Map<string, Record<string, unknown>>();
  for (const row of rows) byKey.set(key.map((k) => String(row[k])).join('\u0000'), row);
  return [...byKey.values()];
}

async function upsertChunk(
  trx: Db,
  upsert: Upsert,
  chunk: Record<string, unknown>[],
): Promise<{ inserted: number; updated: number }> {
  const values = lastPerKey(chunk, upsert.key);
  const columns = Object.keys(values[0] ?? {}).filter((c) => !upsert.key.includes(c));
  if (values.length === 0) return { inserted: 0, updated: 0 };
  const changed = sql.join(columns.map((c) => sql`${sql.ref(`${upsert.table}.${c}`)}`));
  const incoming = sql.join(columns.map((c) => sql`${sql.ref(`excluded.${c}`)}`));
  const rows = await trx
    .insertInto(upsert.table)
    .values(values as never)
    .onConflict((oc) =>
      oc
        .columns(upsert.key as never)
        .doUpdateSet(Object.fromEntries(columns.map((c) => [c, sql.ref(`excluded.${c}`)])) as never)
        .where(sql<boolean>`(${changed}) is distinct from (${incoming})`),
    )
    // xmax is 0 on a freshly inserted row version and set on an updated one.
    .returning(sql<boolean>`xmax = 0`.as('inserted'))
    .execute();
  const inserted = rows.filter((r) => (r as { inserted: boolean }).inserted).length;
  return { inserted, updated: rows.length - inserted };
}
