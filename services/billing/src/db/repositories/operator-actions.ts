import type { Transaction } from 'kysely';
import type { Database } from '../database.js';

/** The operator log's one writer, shared by every service that keeps the table. */
export { insertOperatorAction } from '@meridian/db';

/**
 * Settles an unmatched deposit once: `topup` for the account it is assigned to, or `returned`
 * (sent back on chain by an operator). Answers its amount; undefined when it is not unmatched.
 */
export async function settleUnmatchedDeposit(
  trx: Transaction<Database>,
  txSignature: string,
  to: { kind: 'topup'; account_id: string } | { kind: 'returned' },
): Promise<number | undefined> {
  const row = await trx
    .updateTable('deposits')
    .set({ kind: to.kind, account_id: to.kind === 'topup' ? to.account_id : null })
    .where('tx_signature', '=', txSignature)
    .where('kind', '=', 'unmatched')
    .returning('amount_atomic')
    .executeTakeFirst();
  return row?.amount_atomic;
}
