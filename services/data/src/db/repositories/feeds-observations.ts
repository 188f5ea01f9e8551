import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database>;

export interface StoredObservation {
  source: string;
  key: string;
  metric: string;
  ts: Date;
  value: number | null;
  payload: Record<string, unknown>;
}

const COLUMNS = ['source', 'key', 'metric', 'ts', 'value', 'payload'] as const;

function normalise(r: {
  source: string;
  key: string;
  metric: string;
  ts: Date;
  value: string | null;
  payload: Record<string, unknown>;
}): StoredObservation {
  return { ...r, value: r.value === null ? null : Number(r.value) };
}

/** The newest observation of (metric, key) at or before `at`. */
export async function latestObservation(
  db: Db,
  metric: string,
  key: string,
  at: Date,
): Promise<StoredObservation | undefined> {
  const row = await db
    .selectFrom('observations')
    .select(COLUMNS)
    .where('metric', '=', metric)
    .where('key', '=', key)
    .where('ts', '<=', at)
    .orderBy('ts', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && normalise(row);
}

/** Observations of (metric, key) at or before `before` (exclusive when given), newest first. */
export async function observationHistory(
  db: Db,
  metric: string,
  key: string,
  at: Date,
  limit: number,
  before?: Date,
): Promise<StoredObservation[]> {
  let q = db
    .selectFrom('observations')
    .select(COLUMNS)
    .where('metric', '=', metric)
    .where('key', '=', key)
    .where('ts', '<=', at);
  if (before) q = q.where('ts', '<', before);
  const rows = await q.orderBy('ts', 'desc').limit(limit).execute();
  return rows.map(normalise);
}

/** The newest observation of every key of `metric` (optionally keys starting with `keyPrefix`). */
export async function latestPerKey(
  db: Db,
  metric: string,
  at: Date,
  keyPrefix?: string,
): Promise<StoredObservation[]> {
  let q = db
    .selectFrom('observations')
    .select(COLUMNS)
    .distinctOn('key')
    .where('metric', '=', metric)
    .where('ts', '<=', at);
  if (keyPrefix !== undefined) q = q.where('key', 'like', `${escapeLike(keyPrefix)}%`);
  const rows = await q.orderBy('key').orderBy('ts', 'desc').execute();
  return rows.map(normalise);
}

/** Every observation of `metric` with from < ts <= to (optionally keys starting with `keyPrefix`). */
export async function observationsBetween(
  db: Db,
  metric: string,
  from: Date,
  to: Date,
  keyPrefix?: string,
): Promise<StoredObservation[]> {
  let q = db
    .selectFrom('observations')
    .select(COLUMNS)
    .where('metric', '=', metric)
    .where('ts', '>', from)
    .where('ts', '<=', to);
  if (keyPrefix !== undefined) q = q.where('key', 'like', `${escapeLike(keyPrefix)}%`);
  const rows = await q.orderBy('ts', 'desc').execute();
  return rows.map(normalise);
}

/** The newest replay marker of a source whose recording file contains `file`. */
export async function replayMarker(
  db: Db,
  source: string,
  file: string,
  at: Date,
): Promise<StoredObservation | undefined> {
  const row = await db
    .selectFrom('observations')
    .select(COLUMNS)
    .where('metric', '=', 'replay')
    .where('source', '=', source)
    .where('key', 'like', `%${escapeLike(file)}%`)
    .where('ts', '<=', at)
    .orderBy('ts', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && normalise(row);
}

/** The instants every stored play of a recording landed at (its replay markers, key = the file). */
export async function replayPlays(db: Db, source: string, file: string): Promise<Date[]> {
  const rows = await db
    .selectFrom('observations')
    .select('ts')
    .where('metric', '=', 'replay')
    .where('source', '=', source)
    .where('key', '=', file)
    .orderBy('ts')
    .execute();
  return rows.map((r) => r.ts);
}

/** One stored observation of a source, by its key. */
export interface ObservationKey {
  key: string;
  metric: string;
  ts: string;
}

/** Deletes the observations of a source named by (key, metric, ts); answers how many went. */
export async function deleteObservations(
  db: Db,
  source: string,
  rows: readonly ObservationKey[],
): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const result = await db
      .deleteFrom('observations')
      .where('source', '=', source)
      .where((eb) =>
        eb.or(
          chunk.map((r) =>
            eb.and([eb('key', '=', r.key), eb('metric', '=', r.metric), eb('ts', '=', new Date(r.ts))]),
          ),
        ),
      )
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
