import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../database.js';

/** The operator log's one writer, shared by every service that keeps the table. */
export { insertOperatorAction } from '@meridian/db';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Records a request, or counts it once more when the account already asked the same (domain,
 * kind): one statement, so concurrent identical requests each count. The latest detail is kept.
 */
export async function upsertRequest(
  db: Db,
  request: { account_id: string; kind: string; domain: string; detail: string | null },
  at: Date,
): Promise<{ id: number; count: number }> {
  return db
    .insertInto('service_requests')
    .values({ ...request, first_at: at, last_at: at })
    .onConflict((oc) =>
      oc.constraint('service_requests_identity').doUpdateSet({
        count: sql`service_requests.count + 1`,
        last_at: at,
        detail: sql`coalesce(excluded.detail, service_requests.detail)`,
        // Asked again after an operator closed it: it is open again.
        status: 'open',
      }),
    )
    .returning(['id', 'count'])
    .executeTakeFirstOrThrow();
}

/** Serialises the account's new requests until the transaction ends, so that the cap counts them one by one. */
export async function lockAccountRequests(trx: Transaction<Database>, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`requests.open:${accountId}`}, 0))`.execute(trx);
}

/** Whether the account's request of this (kind, domain) is open now. */
export async function isOpen(
  db: Db,
  request: { account_id: string; kind: string; domain: string },
): Promise<boolean> {
  const row = await db
    .selectFrom('service_requests')
    .select('id')
    .where('account_id', '=', request.account_id)
    .where('kind', '=', request.kind)
    .where('domain', '=', request.domain)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's open requests naming a domain, asked (last) since `since`. */
export async function countOpenRequests(db: Db, accountId: string, since: Date): Promise<number> {
  const row = await db
    .selectFrom('service_requests')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'open')
    .where('domain', '<>', '')
    .where('last_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface RequestFilter {
  status?: string | undefined;
  kind?: string | undefined;
  domain?: string | undefined;
}

export async function listRequests(db: Db, filter: RequestFilter, limit: number) {
  let query = db
    .selectFrom('service_requests')
    .select([
      'id',
      'account_id',
      'kind',
      'domain',
      'detail',
      'count',
      'first_at',
      'last_at',
      'status',
      'operator_note',
      'reviewed_by',
    ])
    .orderBy('last_at', 'desc')
    .limit(limit);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.kind) query = query.where('kind', '=', filter.kind);
  if (filter.domain !== undefined) query = query.where('domain', '=', filter.domain);
  return query.execute();
}

export async function markRequest(
  db: Db,
  id: number,
  mark: { status: string; operator_note: string | null; reviewed_by: string },
  at: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('service_requests')
    .set({ ...mark, reviewed_at: at })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
