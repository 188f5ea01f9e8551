import { createHash } from 'node:crypto';
import { sql, type Generated, type Kysely, type Transaction } from 'kysely';
import { CommandRefused } from './command.js';

/**
 * The append-only log of what operators did, one table in each service whose data they change (a
 * trigger of the service's own migration refuses UPDATE and DELETE). Each row also carries the
 * previous row's hash and its own SHA-256 over its fields, a chain that verifyOperatorLog walks: a
 * role able to disable the trigger can still edit a row, but not without the check naming it.
 */
export interface OperatorActionsTable {
  id: Generated<string>;
  at: Date;
  actor: string;
  action: string;
  target: string;
  reason: string;
  /** The operator checked to hold the role (null for the service itself, the bootstrap, old rows). */
  operator_account_id: string | null;
  operator_email: string | null;
  prev_hash: string | null;
  hash: string | null;
}

export interface OperatorAction {
  at: Date;
  actor: string;
  action: string;
  target: string;
  reason: string;
  /** The operator's account, checked to hold the role by whoever records the action. */
  operator?: { account_id: string; email: string } | undefined;
}

type WithActions = { operator_actions: OperatorActionsTable };
type Chained = Omit<OperatorActionsTable, 'id' | 'hash'>;

/** One lock for every log: inserts take turns, so each names the row before it. */
const CHAIN_LOCK = 'meridian.operator_actions';

/**
 * SHA-256 (hex) over a row's fields in one fixed order, the previous row's hash first. JSON of an
 * array keeps field boundaries unambiguous. Frozen: the services' migrations copy it to chain the
 * rows logged before the chain existed.
 */
function operatorActionHash(row: Chained): string {
  const canonical = JSON.stringify([
    row.prev_hash,
    row.at.toISOString(),
    row.actor,
    row.action,
    row.target,
    row.reason,
    row.operator_account_id,
    row.operator_email,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Records one operator action, in the caller's transaction when it passes one (else in one of its
 * own). The advisory lock held to the end of the transaction makes the chain linear under
 * concurrent inserts, on Postgres and PGlite alike.
 */
export async function insertOperatorAction<DB extends WithActions>(
  db: Kysely<DB> | Transaction<DB>,
  action: OperatorAction,
): Promise<void> {
  // A service's schema holds more tables than this one; the query touches only it.
  const own = db as unknown as Kysely<WithActions>;
  const write = async (trx: Kysely<WithActions>) => {
    await sql`select pg_advisory_xact_lock(hashtext(${CHAIN_LOCK}))`.execute(trx);
    const head = await trx
      .selectFrom('operator_actions')
      .select('hash')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const row: Chained = {
      at: action.at,
      actor: action.actor,
      action: action.action,
      target: action.target,
      reason: action.reason,
      operator_account_id: action.operator?.account_id ?? null,
      operator_email: action.operator?.email ?? null,
      prev_hash: head?.hash ?? null,
    };
    await trx
      .insertInto('operator_actions')
      .values({ ...row, hash: operatorActionHash(row) })
      .execute();
  };
  await (own.isTransaction ? write(own) : own.transaction().execute(write));
}

export type OperatorLogCheck =
  { ok: true; rows: number; head: string | null } | { ok: false; rows: number; id: string; why: string };

const PAGE = 1000;

/**
 * Walks the operator log in order and answers the first row whose hash does not match its fields
 * (edited) or whose link does not name the row before it (a row removed, inserted or reordered).
 * The head hash and count let an operator who noted them earlier see the end cut off too.
 */
export async function verifyOperatorLog<DB extends WithActions>(db: Kysely<DB>): Promise<OperatorLogCheck> {
  const own = db as unknown as Kysely<WithActions>;
  let previous: string | null = null;
  let rows = 0;
  let after: string | undefined;
  for (;;) {
    let query = own.selectFrom('operator_actions').selectAll().orderBy('id').limit(PAGE);
    if (after !== undefined) query = query.where('id', '>', after);
    const page = await query.execute();
    for (const { id, hash, ...row } of page) {
      rows += 1;
      if (row.prev_hash !== previous)
        return { ok: false, rows, id: String(id), why: 'it does not name the row before it' };
      if (hash !== operatorActionHash(row))
        return { ok: false, rows, id: String(id), why: 'its fields do not match its hash' };
      previous = hash;
    }
    if (page.length < PAGE) return { ok: true, rows, head: previous };
    after = String(page[page.length - 1]!.id);
  }
}

/**
 * The operators' commands' check of their service's log (`identity:admin log --verify`,
 * `billing:admin log-verify`, `requests:admin log-verify`, `analysis:admin log-verify`): the row count and head hash, worth
 * noting to see the end cut off later, or a refusal naming the first broken row.
 */
export async function operatorLogCheckLine<DB extends WithActions>(db: Kysely<DB>): Promise<string> {
  const check = await verifyOperatorLog(db);
  if (!check.ok) throw new CommandRefused(`the operator log is broken at row ${check.id}: ${check.why}`);
  return `the operator log holds: ${check.rows} rows, head ${check.head ?? '-'}`;
}
