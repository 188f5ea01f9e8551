import type { ObservedDeposit } from './deposit.js';

/** The SPL Memo program, and the first memo program that some wallets still use. */
export const MEMO_PROGRAM_IDS: readonly string[] = [
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
];

/** A token balance of a transaction's meta (pre or post), as the node reports it. */
export interface TokenBalanceView {
  accountIndex: number;
  mint: string;
  /** Atomic units, a decimal string. */
  amount: string;
}

/** What the watcher needs of a finalized transaction, read off the node's answer. */
export interface TransactionView {
  signature: string;
  slot: number;
  /** Unix seconds; null when the node does not know it. */
  blockTime: number | null;
  failed: boolean;
  /** Static keys, then the writable and the readonly keys loaded from lookup tables: what accountIndex counts in. */
  accountKeys: readonly string[];
  instructions: ReadonlyArray<{ programIdIndex: number; data: Uint8Array }>;
  preTokenBalances: readonly TokenBalanceView[];
  postTokenBalances: readonly TokenBalanceView[];
}

/** Why a transaction of the deposit account is no deposit: the watcher moves its cursor past it and credits nothing. */
export type NotDeposit = 'failed' | 'other_mint' | 'outgoing' | 'no_movement';

export type Observation = { deposit: ObservedDeposit } | { notDeposit: NotDeposit };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of the first Memo program instruction (either program id); null without one or when it is not UTF-8. */
export function memoOf(tx: Pick<TransactionView, 'accountKeys' | 'instructions'>): string | null {
  for (const ix of tx.instructions) {
    const program = tx.accountKeys[ix.programIdIndex];
    if (program === undefined || !MEMO_PROGRAM_IDS.includes(program)) continue;
    try {
      return utf8.decode(ix.data);
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * How many atomic units of `mint` the transaction moved into `account`: post minus pre of that
 * account's token balances (a balance absent before is 0, as for an account created by the
 * transaction). A balance of that account in another mint is `other_mint`: the mint address is
 * what counts, never a symbol.
 */
export function movementInto(
  tx: Pick<TransactionView, 'accountKeys' | 'preTokenBalances' | 'postTokenBalances'>,
  account: string,
  mint: string,
): { atomic: bigint } | { otherMint: true } {
  const index = tx.accountKeys.indexOf(account);
  if (index === -1) return { atomic: 0n };
  const pre = tx.preTokenBalances.find((b) => b.accountIndex === index);
  const post = tx.postTokenBalances.find((b) => b.accountIndex === index);
  if ((pre && pre.mint !== mint) || (post && post.mint !== mint)) return { otherMint: true };
  return { atomic: atomicOf(post) - atomicOf(pre) };
}

function atomicOf(balance: TokenBalanceView | undefined): bigint {
  if (!balance) return 0n;
  if (!/^\d+$/.test(balance.amount))
    throw new RangeError(`token amount "${balance.amount}" is not a whole number`);
  return BigInt(balance.amount);
}

/**
 * A deposit, or why the transaction is none: a failed transaction moves nothing; another mint,
 * an outgoing transfer or no movement of the deposit account credits nothing.
 */
export function observeDeposit(tx: TransactionView, account: string, mint: string): Observation {
  if (tx.failed) return { notDeposit: 'failed' };
  const movement = movementInto(tx, account, mint);
  if ('otherMint' in movement) return { notDeposit: 'other_mint' };
  if (movement.atomic < 0n) return { notDeposit: 'outgoing' };
  if (movement.atomic === 0n) return { notDeposit: 'no_movement' };
  if (movement.atomic > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(
      `deposit ${tx.signature} of ${movement.atomic} atomic units exceeds the ledger's range`,
    );
  return {
    deposit: {
      tx_signature: tx.signature,
      slot: tx.slot,
      block_time: tx.blockTime === null ? null : new Date(tx.blockTime * 1000),
      amount_atomic: Number(movement.atomic),
      memo: memoOf(tx),
    },
  };
}
