import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { DEVNET_USDC_MINT, startSolanaPeer, type SolanaPeer } from '../src/index.js';

const PEER_MODULE = fileURLToPath(new URL('../src/solana-peer.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Resolves once nothing answers at `url` any more. */
async function gone(url: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const answered = await fetch(url, { method: 'POST', body: '{}' }).then(
      () => true,
      () => false,
    );
    if (!answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} still answers after ${timeoutMs} ms`);
}

describe('Solana peer: a JSON-RPC node over LiteSVM', () => {
  let peer: SolanaPeer;
  let rpc: Connection;

  beforeAll(async () => {
    peer = await startSolanaPeer();
    rpc = new Connection(peer.url, 'finalized');
  });

  afterAll(async () => {
    await peer?.close();
  });

  it('holds a 6-decimal USDC-like mint at the devnet USDC address and claims devnet', async () => {
    expect(peer.mint.toBase58()).toBe(DEVNET_USDC_MINT);
    const mint = await rpc.getAccountInfo(peer.mint);
    expect(mint?.owner.toBase58()).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(await rpc.getGenesisHash()).toBe('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG');
    expect(peer.network).toBe('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    expect((await rpc.getVersion())['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('answers a transfer with memo in history and in getTransaction, with token balances', async () => {
    const payer = await peer.wallet({ usdc: 5_000_000 });
    const shop = Keypair.generate().publicKey;
    const shopAccount = await peer.createTokenAccount(shop);
    const slotBefore = await rpc.getSlot();
    const signature = await peer.transfer({ from: payer, toOwner: shop, amount: 1_250_000, memo: 'top-abc' });

    const [entry] = await rpc.getSignaturesForAddress(shopAccount, { limit: 1 }, 'finalized');
    expect(entry).toMatchObject({
      signature,
      err: null,
      memo: '[7] top-abc',
      confirmationStatus: 'finalized',
    });
    expect(entry!.slot).toBeGreaterThan(slotBefore);
    expect(typeof entry!.blockTime).toBe('number');

    const tx = await rpc.getTransaction(signature, {
      commitment: 'finalized',
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.meta?.err).toBeNull();
    const keys = tx!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    const index = keys.indexOf(shopAccount.toBase58());
    const pre = tx!.meta!.preTokenBalances!.find((b) => b.accountIndex === index);
    const post = tx!.meta!.postTokenBalances!.find((b) => b.accountIndex === index);
    expect(pre?.uiTokenAmount.amount).toBe('0');
    expect(post).toMatchObject({ mint: DEVNET_USDC_MINT, owner: shop.toBase58() });
    expect(post?.uiTokenAmount).toMatchObject({ amount: '1250000', decimals: 6, uiAmountString: '1.25' });
    const memoIx = tx!.transaction.message.compiledInstructions.find(
      (ix) => keys[ix.programIdIndex] === 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
    );
    expect(Buffer.from(memoIx!.data).toString('utf8')).toBe('top-abc');
    expect(tx!.meta!.logMessages!.join('\n')).toContain('Memo');

    const balance = await rpc.getTokenAccountBalance(shopAccount);
    expect(balance.value.amount).toBe('1250000');
  });

  it('pages history newest first with before, until and limit', async () => {
    const payer = await peer.wallet({ usdc: 10_000_000 });
    const shop = Keypair.generate().publicKey;
    const account = await peer.createTokenAccount(shop);
    const sent: string[] = [];
    for (let i = 1; i <= 5; i++) sent.push(await peer.transfer({ from: payer, toOwner: shop, amount: i }));
    const all = (await rpc.getSignaturesForAddress(account)).map((s) => s.signature);
    expect(all.slice(0, 5)).toEqual([...sent].reverse());
    expect(all).toHaveLength(6); // and the account's creation
    const page = await rpc.getSignaturesForAddress(account, { before: sent[3], limit: 2 });
    expect(page.map((s) => s.signature)).toEqual([sent[2], sent[1]]);
    const newer = await rpc.getSignaturesForAddress(account, { until: sent[2] });
    expect(newer.map((s) => s.signature)).toEqual([sent[4], sent[3]]);
  });

  it('records a failed transfer that landed, with its error, and moves no token', async () => {
    const payer = await peer.wallet({ usdc: 1_000 });
    const shop = Keypair.generate().publicKey;
    const account = await peer.createTokenAccount(shop);
    const signature = await peer.failingTransfer({ from: payer, toOwner: shop, memo: 'top-abc' });
    const [entry] = await rpc.getSignaturesForAddress(account, { limit: 1 });
    expect(entry?.signature).toBe(signature);
    expect(entry?.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    const tx = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(tx?.meta?.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    expect(await peer.tokenBalance(account)).toBe(0n);
  });

  it('sends a transaction signed by a client over sendTransaction, with preflight', async () => {
    const from = await peer.wallet({ sol: 2 });
    const to = Keypair.generate().publicKey;
    const { blockhash } = await rpc.getLatestBlockhash();
    const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1_000_000_000 }),
    );
    tx.sign(from);
    expect(await rpc.getFeeForMessage(tx.compileMessage())).toMatchObject({ value: 5000 });
    const simulated = await rpc.simulateTransaction(tx);
    expect(simulated.value.err).toBeNull();
    const signature = await rpc.sendRawTransaction(tx.serialize());
    const statuses = await rpc.getSignatureStatuses([signature]);
    expect(statuses.value[0]).toMatchObject({ err: null, confirmationStatus: 'finalized' });
    expect(await rpc.getBalance(to)).toBe(1_000_000_000);
    expect(await rpc.getMinimumBalanceForRentExemption(165)).toBeGreaterThan(0);

    const broke = Keypair.generate();
    await peer.airdrop(broke.publicKey, 10_000_000);
    const failing = new Transaction({ feePayer: broke.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: broke.publicKey, toPubkey: to, lamports: 5_000_000_000 }),
    );
    failing.sign(broke);
    await expect(rpc.sendRawTransaction(failing.serialize())).rejects.toThrow(/simulation failed/i);
    expect(await peer.calls()).toMatchObject({ sendTransaction: 2, simulateTransaction: 1 });
  });

  it('executes a signed transaction handed to send, and keeps it in its history', async () => {
    const from = await peer.wallet();
    const to = Keypair.generate().publicKey;
    const { blockhash } = await rpc.getLatestBlockhash();
    const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 2_000_000 }),
    );
    tx.sign(from);
    const landed = await peer.send(tx);
    expect(landed).toMatchObject({
      err: null,
      fee: 5000,
      wire: Buffer.from(tx.serialize()).toString('base64'),
    });
    expect(landed.accountKeys).toContain(to.toBase58());
    expect((await peer.history()).at(-1)?.signature).toBe(landed.signature);
    expect(await rpc.getBalance(to)).toBe(2_000_000);

    // More than it holds: lands (fee paid) as failed, which rejects unless allowed.
    const overdrawn = (lamports: number) => {
      const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash }).add(
        SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }),
      );
      tx.sign(from);
      return tx;
    };
    await expect(peer.send(overdrawn(5_000_000_000))).rejects.toThrow(/failed/);
    expect((await peer.history()).at(-1)?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    const allowed = await peer.send(overdrawn(6_000_000_000), { allowFailure: true });
    expect(allowed.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await rpc.getBalance(to)).toBe(2_000_000);
  });

  it('runs the chain in a process of its own and leaves the floating-point state of this one clean', async () => {
    expect(peer.pid).not.toBe(process.pid);
    const payer = await peer.wallet({ usdc: 10 });
    await peer.transfer({ from: payer, toOwner: Keypair.generate().publicKey, amount: 1 });
    // What LiteSVM broke in the thread that ran it (the next floating-point remainder answered
    // NaN): pg formats a UTC offset with `-0 % 60`.
    const negativeZero = -Number('0');
    const remainders = Array.from({ length: 10 }, () => negativeZero % 60);
    expect(remainders.every((r) => Object.is(r, -0))).toBe(true);
    expect(new Date(0).toISOString()).toBe('1970-01-01T00:00:00.000Z');
  });

  it('stops on close(), and dies with the process that started it', async () => {
    const other = await startSolanaPeer();
    await other.close();
    await gone(other.url);

    const script = `const { startSolanaPeer } = await import(${JSON.stringify(PEER_MODULE)});
      const peer = await startSolanaPeer();
      process.stdout.write(peer.url + '\\n');
      setInterval(() => {}, 1000);`;
    const parent = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const lines = createInterface({ input: parent.stdout });
    const [url] = (await Promise.race([
      new Promise((resolve) => lines.once('line', (line) => resolve([line]))),
      new Promise((_, reject) => parent.once('exit', () => reject(new Error('the parent exited')))),
    ])) as [string];
    lines.close();
    expect(await rpcCall(url, 'getHealth')).toMatchObject({ result: 'ok' });
    parent.kill('SIGKILL');
    await gone(url);
  });

  it('answers an unknown method with -32601 and a bad address with -32602', async () => {
    const call = (method: string, params: unknown[]) => rpcCall(peer.url, method, params);
    expect(await call('getBlockProduction', [])).toMatchObject({ id: 7, error: { code: -32601 } });
    expect(await call('getBalance', ['not-an-address'])).toMatchObject({ error: { code: -32602 } });
    // The helpers' control methods are not Solana's: the node's own port does not know them.
    expect(await call('peer_wallet', [])).toMatchObject({ error: { code: -32601 } });
    await expect(
      rpc.getSignaturesForAddress(new PublicKey(DEVNET_USDC_MINT), {}, 'processed' as 'finalized'),
    ).rejects.toThrow();
  });
});

async function rpcCall(url: string, method: string, params: unknown[] = []) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return (await res.json()) as { id: number; result?: unknown; error?: { code: number } };
}
