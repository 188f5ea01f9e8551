import type { Generated, Kysely, Transaction } from 'kysely';

/**
 * The append-only log of what operators did, one table in each service whose data they change (a
 * trigger of the service's own migration refuses UPDATE and DELETE).
 */
export interface OperatorActionsTable {
  id: Generated<string>;
  at: Date;
  actor: string;
  action: string;
  target: string;
  reason: string;
}

export interface OperatorAction {
  at: Date;
  actor: string;
  action: string;
  target: string;
  reason: string;
}

type WithActions = { operator_actions: OperatorActionsTable };

/** Records one operator action, in the caller's transaction when it passes one. */
export async function insertOperatorAction<DB extends WithActions>(
  db: Kysely<DB> | Transaction<DB>,
  row: OperatorAction,
): Promise<void> {
  // A service's schema holds more tables than this one; the query touches only it.
  const own = db as unknown as Kysely<WithActions>;
  await own.insertInto('operator_actions').values(row).execute();
}
