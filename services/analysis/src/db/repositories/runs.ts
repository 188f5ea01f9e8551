import { sql, type Kysely, type Transaction, type Updateable } from 'kysely';
import type { Database } from '../database.js';

type Db = Kysely<Database> | Transaction<Database>;
export type RunRow = Omit<Database['runs'], 'attempts'> & { attempts: number };

type NewRun = Pick<
  RunRow,
  | 'id'
  | 'account_id'
  | 'domain_id'
  | 'domain'
  | 'tier'
  | 'status'
  | 'payment'
  | 'origin'
  | 'created_at'
  | 'queued_at'
> &
  Partial<Pick<RunRow, 'idempotency_key' | 'rescan_week'>>;

/** A run as commissioned: nothing charged, attempted, refunded or reported yet. */
export function commissionedRun(run: NewRun): RunRow {
  return {
    amount_atomic: 0,
    pay: null,
    idempotency_key: null,
    rescan_week: null,
    attempts: 0,
    worker: null,
    lease_until: null,
    started_at: null,
    finished_at: null,
    error: null,
    refund: null,
    refund_atomic: null,
    report: null,
    ...run,
  };
}

const COLUMNS = [
  'id',
  'account_id',
  'domain_id',
  'domain',
  'tier',
  'status',
  'payment',
  'amount_atomic',
  'pay',
  'idempotency_key',
  'origin',
  'rescan_week',
  'attempts',
  'worker',
  'lease_until',
  'created_at',
  'queued_at',
  'started_at',
  'finished_at',
  'error',
  'refund',
  'refund_atomic',
  'report',
] as const;

const isUnique = (err: unknown) => (err as { code?: string }).code === '23505';

/** Inserts a run; false when its idempotency key or re-scan week is already taken. */
export async function insertRun(db: Db, run: RunRow): Promise<boolean> {
  try {
    await db
      .insertInto('runs')
      .values({
        ...run,
        pay: run.pay ? JSON.stringify(run.pay) : null,
        report: run.report ? JSON.stringify(run.report) : null,
      } as never)
      .execute();
    return true;
  } catch (err) {
    if (isUnique(err)) return false;
    throw err;
  }
}

/** Removes a run nothing was paid for (its payment refused or never quoted); false when it moved on. */
export async function dropUnpaidRun(db: Db, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('runs')
    .where('id', '=', id)
    .where('status', '=', 'awaiting_payment')
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function findRun(db: Db, id: string): Promise<RunRow | undefined> {
  return db.selectFrom('runs').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** The account's run; another account's is never found. */
export async function runOf(db: Db, accountId: string, id: string): Promise<RunRow | undefined> {
  return db
    .selectFrom('runs')
    .select(COLUMNS)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function runByIdempotencyKey(
  db: Db,
  accountId: string,
  key: string,
): Promise<RunRow | undefined> {
  return db
    .selectFrom('runs')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export async function runsOfDomain(db: Db, domainId: string, limit: number): Promise<RunRow[]> {
  return db
    .selectFrom('runs')
    .select(COLUMNS)
    .where('domain_id', '=', domainId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The last succeeded run of the domain before `runId` (for what changed since). */
export async function previousReport(db: Db, domainId: string, runId: string): Promise<RunRow | undefined> {
  return db
    .selectFrom('runs')
    .select(COLUMNS)
    .where('domain_id', '=', domainId)
    .where('status', '=', 'succeeded')
    .where('id', '!=', runId)
    .where('report', 'is not', null)
    .orderBy('finished_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Moves a run from one of `from` to `to` with the other columns given; false when it was elsewhere. */
export async function moveRun(
  db: Db,
  id: string,
  from: readonly string[],
  set: Updateable<Database['runs']>,
  /** Only while its lease ended before this instant (a run no worker holds). */
  leaseBefore?: Date,
): Promise<RunRow | undefined> {
  let query = db
    .updateTable('runs')
    .set({
      ...set,
      ...(set.report ? { report: JSON.stringify(set.report) } : {}),
      ...(set.pay ? { pay: JSON.stringify(set.pay) } : {}),
    } as never)
    .where('id', '=', id)
    .where('status', 'in', [...from]);
  if (leaseBefore) query = query.where('lease_until', '<', leaseBefore);
  return query.returning(COLUMNS).executeTakeFirst();
}

export type Claim =
  | { kind: 'claimed'; run: RunRow }
  | { kind: 'leased'; until: Date }
  | { kind: 'settled'; run: RunRow | undefined };

/**
 * Takes a queued run, or a running one whose lease ran out (its worker died), for this worker:
 * one more attempt, a fresh lease. Another worker's live lease is answered with its end.
 */
export async function claimRun(
  db: Db,
  id: string,
  worker: string,
  leaseMs: number,
  now: Date,
): Promise<Claim> {
  const claimed = await db
    .updateTable('runs')
    .set((eb) => ({
      status: 'running',
      worker,
      attempts: eb('attempts', '+', 1),
      lease_until: new Date(now.getTime() + leaseMs),
      started_at: eb.fn.coalesce('started_at', eb.val(now)),
    }))
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([eb('status', '=', 'running'), eb('lease_until', '<=', now)]),
      ]),
    )
    .returning(COLUMNS)
    .executeTakeFirst();
  if (claimed) return { kind: 'claimed', run: claimed };
  const run = await findRun(db, id);
  if (run?.status === 'running' && run.lease_until) return { kind: 'leased', until: run.lease_until };
  return { kind: 'settled', run };
}

/** The worker's heartbeat: false when the run is no longer its own (the lease was lost). */
export async function renewLease(db: Db, id: string, worker: string, until: Date): Promise<boolean> {
  const result = await db
    .updateTable('runs')
    .set({ lease_until: until })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('worker', '=', worker)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Running runs whose lease ran out more than `graceMs` ago: their job was lost with their worker. */
export async function abandonedRuns(db: Db, now: Date, graceMs: number): Promise<RunRow[]> {
  return db
    .selectFrom('runs')
    .select(COLUMNS)
    .where('status', '=', 'running')
    .where('lease_until', '<', new Date(now.getTime() - graceMs))
    .limit(100)
    .execute();
}

export async function pendingRefunds(db: Db): Promise<RunRow[]> {
  return db.selectFrom('runs').select(COLUMNS).where('refund', '=', 'pending').limit(100).execute();
}

/** Unpaid runs whose quote lapsed: failed, nothing was charged. */
export async function lapseQuotes(db: Db, before: Date, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('runs')
    .set({ status: 'failed', error: 'payment_not_received', finished_at: now })
    .where('status', '=', 'awaiting_payment')
    .where('created_at', '<', before)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Serialises the account's commissions until the transaction ends, so that runs asked at once are
 * counted one after the other (a transaction-scoped advisory lock: Postgres and PGlite alike).
 */
export async function lockAccountRuns(trx: Transaction<Database>, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`analysis.runs:${accountId}`}, 0))`.execute(trx);
}

/**
 * What the account holds against its caps: runs queued or running or whose credit spend is in
 * flight, and deposit quotes neither paid nor lapsed (created after `quotedSince`).
 */
export async function heldRuns(
  db: Db,
  accountId: string,
  quotedSince: Date,
): Promise<{ unfinished: number; openQuotes: number }> {
  const row = await db
    .selectFrom('runs')
    .select((eb) => [
      eb.fn
        .countAll<string>()
        .filterWhere((w) =>
          w.or([
            w('status', 'in', ['queued', 'running']),
            w.and([w('status', '=', 'awaiting_payment'), w('payment', '<>', 'deposit')]),
          ]),
        )
        .as('unfinished'),
      eb.fn
        .countAll<string>()
        .filterWhere((w) =>
          w.and([
            w('status', '=', 'awaiting_payment'),
            w('payment', '=', 'deposit'),
            w('created_at', '>=', quotedSince),
          ]),
        )
        .as('quotes'),
    ])
    .where('account_id', '=', accountId)
    .where('status', 'in', ['queued', 'running', 'awaiting_payment'])
    .executeTakeFirstOrThrow();
  return { unfinished: Number(row.unfinished), openQuotes: Number(row.quotes) };
}

/**
 * The queued run, locked, when its account was served (a run of it started) more recently than
 * another account that has a run queued: that account's turn comes first. Undefined otherwise.
 */
export async function queuedBehindOthers(db: Db, id: string): Promise<RunRow | undefined> {
  const lastServed = (account: string) =>
    sql<Date>`coalesce((select max(s.started_at) from analysis.runs s where s.account_id = ${sql.ref(account)}), '-infinity')`;
  return db
    .selectFrom('runs as r')
    .select(COLUMNS.map((c) => `r.${c}` as const))
    .where('r.id', '=', id)
    .where('r.status', '=', 'queued')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('runs as o')
          .select('o.id')
          .where('o.status', '=', 'queued')
          .whereRef('o.account_id', '<>', 'r.account_id')
          .where(sql<boolean>`${lastServed('o.account_id')} < ${lastServed('r.account_id')}`),
      ),
    )
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}
