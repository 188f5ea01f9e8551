import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Keypair, PublicKey } from '@solana/web3.js';
import { SOLANA_DEVNET } from '@meridian/contracts';
import { startSolanaPeer, type SolanaPeer } from '@meridian/test-peers';
import { solanaDepositReader, type DepositReader } from '../../src/adapters/solana-rpc.js';
import { depositBook, watchOnce, type DepositBook } from '../../src/jobs/deposit-watcher.js';
import { startBilling, type Billing } from './harness.js';

/**
 * The watcher against a Solana node on loopback (LiteSVM): real signed SPL transfers with memos.
 * The service's own watcher (started by main.ts) watches one deposit wallet; the other scenarios
 * drive passes by hand over wallets of their own, so each decides when a pass runs or stops.
 */
describe('deposit watcher', () => {
  let peer: SolanaPeer;
  let billing: Billing;
  let serviceWallet: Keypair;
  let payer: Keypair;

  beforeAll(async () => {
    peer = await startSolanaPeer();
    serviceWallet = await peer.wallet();
    await peer.createTokenAccount(serviceWallet.publicKey);
    payer = await peer.wallet({ usdc: 1_000_000_000 });
    billing = await startBilling('billing_deposits', {
      SOLANA_RPC_URL: peer.url,
      DEPOSIT_ADDRESS: serviceWallet.publicKey.toBase58(),
      SOLANA_NETWORK: SOLANA_DEVNET,
      DEPOSIT_POLL_MS: '200',
    });
  });

  afterAll(async () => {
    await billing?.assertBalancesMatchLedger();
    await billing?.close();
    await peer?.close();
  });

  const balanceOf = async (accountId: string): Promise<number> => {
    const res = await request(billing.app)
      .get('/v1/credits')
      .set(await billing.as(accountId));
    expect(res.status).toBe(200);
    return res.body.balance_atomic as number;
  };

  /** A deposit wallet of a scenario's own, its token account created, and a reader of it. */
  const depositWallet = async (pageSize?: number) => {
    const owner = await peer.wallet();
    await peer.createTokenAccount(owner.publicKey);
    const reader = solanaDepositReader({
      url: peer.url,
      owner: owner.publicKey.toBase58(),
      mint: peer.mint.toBase58(),
      ...(pageSize ? { pageSize } : {}),
    });
    return { owner, to: owner.publicKey, reader };
  };

  const topUp = (to: PublicKey, accountId: string, amount: number) => {
    billing.identity.accounts.add(accountId);
    return peer.transfer({ from: payer, toOwner: to, amount, memo: `top-${accountId}` });
  };

  it('credits a top-up through the watcher main.ts starts, read from the associated token account', async () => {
    const accountId = randomUUID();
    const signature = await topUp(serviceWallet.publicKey, accountId, 2_500_000);
    const deadline = Date.now() + 15_000;
    while ((await balanceOf(accountId)) === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const res = await request(billing.app)
      .get('/v1/credits')
      .set(await billing.as(accountId));
    expect(res.body.balance_atomic).toBe(2_500_000);
    expect(res.body.entries).toEqual([
      expect.objectContaining({ reason: 'topup_usdc', delta_atomic: 2_500_000 }),
    ]);
    expect(JSON.stringify(res.body.entries[0])).toContain(signature);
    const metrics = await billing.deps.metrics.registry.metrics();
    expect(metrics).toMatch(/billing_deposit_transactions_total\{[^}]*outcome="deposit"[^}]*\} [1-9]/);
  });

  it('credits a deposit once when it is seen twice, by two passes at once and by a pass that ignores the cursor', async () => {
    const { to, reader } = await depositWallet();
    const accountId = randomUUID();
    await topUp(to, accountId, 1_000_000);
    const book = depositBook(billing.deps);
    // A reader that always lists the whole history, as a cursor lost or two replicas would.
    const forgetful: DepositReader = { ...reader, newSignatures: () => reader.newSignatures(null) };
    await Promise.all([watchOnce(forgetful, book), watchOnce(forgetful, book), watchOnce(reader, book)]);
    await watchOnce(forgetful, book);
    expect(await balanceOf(accountId)).toBe(1_000_000);
  });

  it('skips a failed transaction that landed, and moves the cursor past it', async () => {
    const { to, reader } = await depositWallet();
    const accountId = randomUUID();
    const signature = await peer.failingTransfer({ from: payer, toOwner: to, memo: `top-${accountId}` });
    const book = depositBook(billing.deps);
    expect(await watchOnce(reader, book)).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(accountId)).toBe(0);
    expect(await book.readCursor(reader.watched)).toBe(signature);
  });

  it('ignores another mint sent to the deposit wallet, and an outgoing transfer with a top-up memo', async () => {
    const { owner, to, reader } = await depositWallet();
    const accountId = randomUUID();
    const fake = await peer.createMint({ decimals: 6 });
    await peer.mintTo(payer.publicKey, 10_000_000, fake);
    await peer.transfer({
      from: payer,
      toOwner: to,
      amount: 5_000_000,
      memo: `top-${accountId}`,
      mint: fake,
    });
    // The deposit wallet pays someone out of its USDC account, with a memo that names an account.
    await topUp(to, randomUUID(), 3_000_000);
    const out = await peer.transfer({
      from: owner,
      toOwner: payer.publicKey,
      amount: 1_000_000,
      memo: `top-${accountId}`,
    });
    const book = depositBook(billing.deps);
    await watchOnce(reader, book);
    expect(await balanceOf(accountId)).toBe(0);
    expect(await book.readCursor(reader.watched)).toBe(out);
  });

  it('credits exactly once a deposit read by a watcher stopped before crediting, then restarted', async () => {
    const { to, reader } = await depositWallet();
    const accountId = randomUUID();
    await topUp(to, accountId, 700_000);
    const book = depositBook(billing.deps);

    // Stopped after the node answered, before anything was written.
    let read = 0;
    const counting: DepositReader = {
      ...reader,
      observe: async (signature) => {
        read += 1;
        return reader.observe(signature);
      },
    };
    await watchOnce(counting, book, { stopping: () => read > 0 });
    expect(read).toBe(1);
    expect(await balanceOf(accountId)).toBe(0);

    // Killed inside the write: the transaction rolls back, the cursor with it.
    const killed: DepositBook = {
      ...book,
      recordDeposit: async () => {
        throw new Error('killed');
      },
    };
    await expect(watchOnce(reader, killed)).rejects.toThrow('killed');
    expect(await balanceOf(accountId)).toBe(0);

    await watchOnce(reader, book);
    await watchOnce(reader, book);
    expect(await balanceOf(accountId)).toBe(700_000);
  });

  it('catches up from its cursor on every deposit made while it was down, across pages of history', async () => {
    const { to, reader } = await depositWallet(2);
    const book = depositBook(billing.deps);
    const early = randomUUID();
    await topUp(to, early, 100_000);
    await watchOnce(reader, book);
    expect(await balanceOf(early)).toBe(100_000);

    // Down: several deposits, a failed one and an unmatched one land meanwhile.
    const accounts = [randomUUID(), randomUUID(), randomUUID()];
    const amounts = [1_000_000, 2_000_000, 3_000_000];
    await topUp(to, accounts[0]!, amounts[0]!);
    await peer.failingTransfer({ from: payer, toOwner: to, memo: `top-${accounts[1]}` });
    await topUp(to, accounts[1]!, amounts[1]!);
    await peer.transfer({ from: payer, toOwner: to, amount: 42, memo: 'thanks!' });
    await topUp(to, accounts[2]!, amounts[2]!);
    const last = await topUp(to, accounts[0]!, 500_000);

    expect(await watchOnce(reader, book)).toBe(6);
    expect(await balanceOf(accounts[0]!)).toBe(1_500_000);
    expect(await balanceOf(accounts[1]!)).toBe(2_000_000);
    expect(await balanceOf(accounts[2]!)).toBe(3_000_000);
    expect(await balanceOf(early)).toBe(100_000);
    expect(await book.readCursor(reader.watched)).toBe(last);
    expect(await watchOnce(reader, book)).toBe(0);
  });
});
