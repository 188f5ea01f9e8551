import { describe, expect, it } from '@jest/globals';
import { memoOf, observeDeposit, type TransactionView } from '../../src/domain/deposit-transaction.js';

const USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const OTHER_MINT = 'So11111111111111111111111111111111111111112';
const DEPOSIT_ACCOUNT = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const PAYER = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const PAYER_ACCOUNT = '3Kz9pLWcuPYkU2KT8b3oKXZTvT5tmK1xkcFbUP1dDxQE';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const MEMO_V1 = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';
const text = (s: string) => new TextEncoder().encode(s);

/** A USDC transfer of `amount` from the payer into the deposit account, with an optional memo. */
function transfer(amount: number, memo?: { program?: string; data: Uint8Array }): TransactionView {
  const keys = [PAYER, PAYER_ACCOUNT, DEPOSIT_ACCOUNT, USDC, TOKEN_PROGRAM, memo?.program ?? MEMO];
  return {
    signature: 'sig-1',
    slot: 42,
    blockTime: 1_764_000_000,
    failed: false,
    accountKeys: keys,
    instructions: [
      ...(memo ? [{ programIdIndex: 5, data: memo.data }] : []),
      { programIdIndex: 4, data: new Uint8Array([12]) },
    ],
    preTokenBalances: [
      { accountIndex: 1, mint: USDC, amount: '5000000' },
      { accountIndex: 2, mint: USDC, amount: '700' },
    ],
    postTokenBalances: [
      { accountIndex: 1, mint: USDC, amount: String(5_000_000 - amount) },
      { accountIndex: 2, mint: USDC, amount: String(700 + amount) },
    ],
  };
}

describe('reading a deposit off a finalized transaction', () => {
  it('takes the amount from the deposit account’s pre and post balances, with memo, slot and time', () => {
    expect(observeDeposit(transfer(1_250_000, { data: text('top-abc') }), DEPOSIT_ACCOUNT, USDC)).toEqual({
      deposit: {
        tx_signature: 'sig-1',
        slot: 42,
        block_time: new Date(1_764_000_000_000),
        amount_atomic: 1_250_000,
        memo: 'top-abc',
      },
    });
  });

  it('counts a deposit account created by the transaction from zero', () => {
    const tx = { ...transfer(300), preTokenBalances: [{ accountIndex: 1, mint: USDC, amount: '5000000' }] };
    tx.postTokenBalances = [{ accountIndex: 2, mint: USDC, amount: '300' }];
    expect(observeDeposit(tx, DEPOSIT_ACCOUNT, USDC)).toMatchObject({
      deposit: { amount_atomic: 300, memo: null },
    });
  });

  it('skips a failed transaction whatever its balances say', () => {
    expect(observeDeposit({ ...transfer(1000), failed: true }, DEPOSIT_ACCOUNT, USDC)).toEqual({
      notDeposit: 'failed',
    });
  });

  it('ignores a token whose mint is not the configured address, even one calling itself USDC', () => {
    const tx = transfer(1000);
    const other = {
      ...tx,
      preTokenBalances: tx.preTokenBalances.map((b) => ({ ...b, mint: OTHER_MINT })),
      postTokenBalances: tx.postTokenBalances.map((b) => ({ ...b, mint: OTHER_MINT })),
    };
    expect(observeDeposit(other, DEPOSIT_ACCOUNT, USDC)).toEqual({ notDeposit: 'other_mint' });
  });

  it('credits nothing for an outgoing transfer or one that does not move the deposit account', () => {
    const outgoing = transfer(1000);
    outgoing.postTokenBalances = [
      { accountIndex: 1, mint: USDC, amount: '5000500' },
      { accountIndex: 2, mint: USDC, amount: '200' },
    ];
    expect(observeDeposit(outgoing, DEPOSIT_ACCOUNT, USDC)).toEqual({ notDeposit: 'outgoing' });
    expect(observeDeposit(transfer(0), DEPOSIT_ACCOUNT, USDC)).toEqual({ notDeposit: 'no_movement' });
    const elsewhere = {
      ...transfer(1000),
      accountKeys: [PAYER, PAYER_ACCOUNT, PAYER, USDC, TOKEN_PROGRAM, MEMO],
    };
    expect(observeDeposit(elsewhere, DEPOSIT_ACCOUNT, USDC)).toEqual({ notDeposit: 'no_movement' });
  });

  it('refuses an amount the ledger cannot hold exactly', () => {
    const huge = transfer(0);
    huge.postTokenBalances = [{ accountIndex: 2, mint: USDC, amount: '9007199254750000' }];
    expect(() => observeDeposit(huge, DEPOSIT_ACCOUNT, USDC)).toThrow(RangeError);
  });
});

describe('the memo of a deposit', () => {
  it('reads the Memo program instruction, under its current and its first program id', () => {
    expect(memoOf(transfer(1, { data: text('top-abc') }))).toBe('top-abc');
    expect(memoOf(transfer(1, { program: MEMO_V1, data: text('order-xyz') }))).toBe('order-xyz');
  });

  it('is null without a memo instruction, and for data of another program or not UTF-8', () => {
    expect(memoOf(transfer(1))).toBeNull();
    expect(memoOf(transfer(1, { program: TOKEN_PROGRAM, data: text('top-abc') }))).toBeNull();
    expect(memoOf(transfer(1, { data: new Uint8Array([0xff, 0xfe]) }))).toBeNull();
  });

  it('takes the first memo when a transaction carries two', () => {
    const tx = transfer(1, { data: text('top-first') });
    const second = {
      ...tx,
      instructions: [...tx.instructions, { programIdIndex: 5, data: text('top-second') }],
    };
    expect(memoOf(second)).toBe('top-first');
  });
});
