import { Connection, PublicKey, type TokenBalance, type VersionedTransactionResponse } from '@solana/web3.js';
import { observeDeposit, type Observation, type TransactionView } from '../domain/deposit-transaction.js';

const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
/** The most a node answers per getSignaturesForAddress call. */
const PAGE_LIMIT = 1000;

/** A transaction of the deposit account, newer than the cursor. */
export interface SeenSignature {
  signature: string;
  failed: boolean;
}

/** Reads the deposit token account's transactions from a Solana node, at `finalized` commitment. */
export interface DepositReader {
  /** The token account watched (the deposit wallet's associated account for the mint). */
  readonly watched: string;
  /** Every transaction of the account newer than `cursor` (all of them without one), oldest first. */
  newSignatures(cursor: string | null): Promise<SeenSignature[]>;
  /** The deposit the transaction made, or why it is none. */
  observe(signature: string): Promise<Observation>;
}

/** The associated token account of `owner` for `mint` (SPL Token program). */
export function associatedTokenAccount(owner: string, mint: string): string {
  const [address] = PublicKey.findProgramAddressSync(
    [new PublicKey(owner).toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), new PublicKey(mint).toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  );
  return address.toBase58();
}

/**
 * Over @solana/web3.js `Connection`: history pages backwards with `before` until the cursor, so
 * an outage of any length is caught up fully; retries on rate limits are the watcher's next tick.
 */
export function solanaDepositReader(options: {
  url: string;
  owner: string;
  mint: string;
  pageSize?: number;
}): DepositReader {
  const connection = new Connection(options.url, { commitment: 'finalized', disableRetryOnRateLimit: true });
  const watched = associatedTokenAccount(options.owner, options.mint);
  const account = new PublicKey(watched);
  const pageSize = Math.min(options.pageSize ?? PAGE_LIMIT, PAGE_LIMIT);
  return {
    watched,
    async newSignatures(cursor) {
      const newestFirst: SeenSignature[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await connection.getSignaturesForAddress(
          account,
          { limit: pageSize, ...(before ? { before } : {}), ...(cursor ? { until: cursor } : {}) },
          'finalized',
        );
        for (const info of page) newestFirst.push({ signature: info.signature, failed: info.err !== null });
        if (page.length < pageSize) break;
        before = page[page.length - 1]!.signature;
      }
      return newestFirst.reverse();
    },
    async observe(signature) {
      const tx = await connection.getTransaction(signature, {
        commitment: 'finalized',
        maxSupportedTransactionVersion: 0,
      });
      // Listed at finalized but not served yet (a node behind its peers): the next tick reads it again.
      if (!tx) throw new Error(`transaction ${signature} is not available yet`);
      return observeDeposit(viewOf(signature, tx), watched, options.mint);
    },
  };
}

function viewOf(signature: string, tx: VersionedTransactionResponse): TransactionView {
  const message = tx.transaction.message;
  const keys = message.getAccountKeys({ accountKeysFromLookups: tx.meta?.loadedAddresses ?? null });
  const accountKeys: string[] = [];
  for (let i = 0; i < keys.length; i++) accountKeys.push(keys.get(i)!.toBase58());
  const balances = (list: TokenBalance[] | null | undefined) =>
    (list ?? []).map((b) => ({ accountIndex: b.accountIndex, mint: b.mint, amount: b.uiTokenAmount.amount }));
  return {
    signature,
    slot: tx.slot,
    blockTime: tx.blockTime ?? null,
    // No meta means the node cannot say it succeeded: treat it as failed rather than credit it.
    failed: !tx.meta || tx.meta.err !== null,
    accountKeys,
    instructions: message.compiledInstructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      data: ix.data,
    })),
    preTokenBalances: balances(tx.meta?.preTokenBalances),
    postTokenBalances: balances(tx.meta?.postTokenBalances),
  };
}
