import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Keypair, PublicKey, type Transaction, type VersionedTransaction } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';

/** The USDC mint of Solana devnet (6 decimals): the peer's default mint. */
export const DEVNET_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
/** Genesis hash of Solana devnet: the peer answers it, so its CAIP-2 id is devnet's. */
export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
/** The SPL Memo program (v2/v3 id) and the first memo program, as wallets still use both. */
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
export const MEMO_V1_PROGRAM_ID = new PublicKey('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo');

const HERE = dirname(fileURLToPath(import.meta.url));
/** The repository root, where `tsx` resolves (as for the services `startServiceProcess` runs). */
const ROOT = join(HERE, '..', '..', '..');
/** The chain's own process: LiteSVM, the JSON-RPC server and the control server. */
const NODE_ENTRY = join(HERE, 'solana-node.ts');
const START_TIMEOUT_MS = 30_000;

export type TxErrorJson = string | Record<string, unknown>;

export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

/** One transaction that landed, as the node keeps it for getTransaction and getSignaturesForAddress. */
export interface LandedTransaction {
  signature: string;
  slot: number;
  blockTime: number;
  err: TxErrorJson | null;
  /** The signed transaction as sent, base64. */
  wire: string;
  accountKeys: string[];
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  logMessages: string[];
  innerInstructions: Array<{
    index: number;
    instructions: Array<{ programIdIndex: number; accounts: number[]; data: string; stackHeight: number }>;
  }>;
  computeUnitsConsumed: number;
  memos: string[];
}

export interface TransferOptions {
  from: Keypair;
  toOwner: PublicKey;
  /** Atomic units of the mint. */
  amount: bigint | number;
  memo?: string;
  /** Which memo program carries the memo; default the current one. */
  memoProgram?: 'v1' | 'current';
  /** Default the peer's USDC-like mint. */
  mint?: PublicKey;
}

export interface SolanaPeerOptions {
  /** Address of the USDC-like mint; default the devnet USDC mint. */
  mint?: string;
  decimals?: number;
  genesisHash?: string;
}

/** What the node's process writes on its stdout, one JSON line, once it listens. */
export interface SolanaNodeReady {
  url: string;
  control: string;
  network: string;
  mint: string;
  decimals: number;
  /** Secret key of the mint authority, base64. */
  authority: string;
}

export interface SolanaPeer {
  /** JSON-RPC 2.0 endpoint on loopback. */
  url: string;
  /** CAIP-2 id of the chain this peer claims to be (`solana:` + first 32 characters of its genesis hash). */
  network: string;
  /** Process id of the node (it runs in a child process of its own). */
  pid: number;
  /** The USDC-like mint, its decimals, and the key that may mint it (also the peer's fee payer). */
  mint: PublicKey;
  decimals: number;
  authority: Keypair;
  /** Every landed transaction, oldest first. */
  history(): Promise<LandedTransaction[]>;
  /** A new key pair with `sol` SOL (default 1) and, when given, `usdc` atomic units in its associated token account. */
  wallet(funds?: { sol?: number; usdc?: bigint | number }): Promise<Keypair>;
  /** Lamports from the faucet (not a transaction of the history, like a genesis allocation). */
  airdrop(to: PublicKey, lamports: bigint | number): Promise<void>;
  /** The associated token account of `owner` for `mint` (default the USDC-like mint). */
  ata(owner: PublicKey, mint?: PublicKey): PublicKey;
  /** Creates the associated token account (a real transaction paid by the authority); answers its address. */
  createTokenAccount(owner: PublicKey, mint?: PublicKey): Promise<PublicKey>;
  /** Mints `amount` to the owner's associated token account, creating it if needed; answers the signature. */
  mintTo(owner: PublicKey, amount: bigint | number, mint?: PublicKey): Promise<string>;
  /** Another mint owned by the authority, at `address` (default a fresh key). */
  createMint(options?: { address?: PublicKey; decimals?: number }): Promise<PublicKey>;
  /** A signed SPL TransferChecked (with a memo instruction when `memo` is given) that must succeed; answers the signature. */
  transfer(options: TransferOptions): Promise<string>;
  /**
   * A transfer of more than the sender holds: it lands (fee paid, recorded with its error, as a
   * node records a failed transaction) but moves no token. Answers the signature.
   */
  failingTransfer(options: Omit<TransferOptions, 'amount'>): Promise<string>;
  /**
   * Executes a signed transaction in a slot of its own, without preflight; one that fails before
   * landing rejects, a landed failure rejects unless `allowFailure`.
   */
  send(
    tx: Transaction | VersionedTransaction,
    options?: { allowFailure?: boolean },
  ): Promise<LandedTransaction>;
  /** Atomic balance of a token account (0n when it does not exist). */
  tokenBalance(account: PublicKey): Promise<bigint>;
  /** RPC calls received on `url`, by method (for tests that count what a client asked). */
  calls(): Promise<Record<string, number>>;
  /** Makes the current blockhash stale (a new one is current); answers the new blockhash. */
  expireBlockhash(): Promise<string>;
  /** Stops the node: its stdin closes, it exits (SIGKILL after 5 s). */
  close(): Promise<void>;
}

type NodeProcess = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * A Solana node on loopback: a JSON-RPC 2.0 server over LiteSVM that executes real signed
 * transactions, gives each its own slot and block time, and answers history queries from what
 * landed, like a node with full history at `finalized` commitment (see solana-node.ts).
 *
 * The chain runs in a child process of its own, never in the test's: LiteSVM's native code leaves
 * the floating-point state of its thread dirty once an SPL program has run (`-0 % 60` is NaN
 * afterwards, so pg would write dates as "+00:NaN" on a UTC machine). The helpers below are calls
 * to the child's control server (`peer_*` methods on a port of its own, apart from the Solana
 * methods on `url`); key pairs cross as secret-key bytes. The child exits when its stdin closes,
 * so it dies with this process.
 */
export async function startSolanaPeer(options: SolanaPeerOptions = {}): Promise<SolanaPeer> {
  const child: NodeProcess = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', NODE_ENTRY, JSON.stringify(options)],
    { cwd: ROOT, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const stderr = stderrTail(child);
  let ready: SolanaNodeReady;
  try {
    ready = await readiness(child, stderr);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  // A test that forgets close() must not keep its process alive; the child follows it out anyway.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as unknown as { unref?: () => void }).unref?.();

  const control = controlOf(child, ready, stderr);
  const mint = new PublicKey(ready.mint);

  return {
    url: ready.url,
    network: ready.network,
    pid: child.pid!,
    mint,
    decimals: ready.decimals,
    authority: keypairOf(ready.authority),
    history: () => control('history'),
    calls: () => control('calls'),
    expireBlockhash: () => control('expireBlockhash'),
    wallet: async (funds = {}) =>
      keypairOf(
        await control<string>('wallet', {
          ...(funds.sol === undefined ? {} : { sol: funds.sol }),
          ...(funds.usdc === undefined ? {} : { usdc: String(funds.usdc) }),
        }),
      ),
    airdrop: (to, lamports) => control('airdrop', { to: to.toBase58(), lamports: String(lamports) }),
    ata: (owner, tokenMint = mint) => getAssociatedTokenAddressSync(tokenMint, owner, true),
    createTokenAccount: async (owner, tokenMint) =>
      new PublicKey(
        await control<string>('createTokenAccount', {
          owner: owner.toBase58(),
          ...(tokenMint ? { mint: tokenMint.toBase58() } : {}),
        }),
      ),
    mintTo: (owner, amount, tokenMint) =>
      control('mintTo', {
        owner: owner.toBase58(),
        amount: String(amount),
        ...(tokenMint ? { mint: tokenMint.toBase58() } : {}),
      }),
    createMint: async (opts = {}) =>
      new PublicKey(
        await control<string>('createMint', {
          ...(opts.address ? { address: opts.address.toBase58() } : {}),
          ...(opts.decimals === undefined ? {} : { decimals: opts.decimals }),
        }),
      ),
    transfer: (opts) => control('transfer', { ...transferParams(opts), amount: String(opts.amount) }),
    failingTransfer: (opts) => control('failingTransfer', transferParams(opts)),
    send: (tx, opts) =>
      control('send', {
        wire: Buffer.from(tx.serialize()).toString('base64'),
        allowFailure: opts?.allowFailure ?? false,
      }),
    tokenBalance: async (account) =>
      BigInt(await control<string>('tokenBalance', { account: account.toBase58() })),
    close: () => stop(child),
  };
}

/** A call to the node's control server (`peer_*`), saying why when the node died under it. */
function controlOf(child: NodeProcess, ready: SolanaNodeReady, stderr: () => string) {
  let seq = 0;
  return async <T>(method: string, params: Record<string, unknown> = {}): Promise<T> => {
    seq += 1;
    let res: Response;
    try {
      res = await fetch(ready.control, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: seq, method: `peer_${method}`, params }),
      });
    } catch (err) {
      // Say why when the node died under the call, not only that the socket closed.
      const exit = await exited(child, 500);
      if (exit)
        throw new Error(`Solana peer ${method}: the node exited (${exit}): ${stderr()}`, { cause: err });
      throw err;
    }
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`Solana peer ${method}: ${body.error.message}`);
    return body.result as T;
  };
}

/** A transfer's parameters as the control server takes them (keys as text). */
const transferParams = (opts: Omit<TransferOptions, 'amount'>) => ({
  from: secretOf(opts.from),
  toOwner: opts.toOwner.toBase58(),
  ...(opts.memo === undefined ? {} : { memo: opts.memo }),
  ...(opts.memoProgram === undefined ? {} : { memoProgram: opts.memoProgram }),
  ...(opts.mint === undefined ? {} : { mint: opts.mint.toBase58() }),
});

const secretOf = (keypair: Keypair): string => Buffer.from(keypair.secretKey).toString('base64');
const keypairOf = (secret: string): Keypair => Keypair.fromSecretKey(Buffer.from(secret, 'base64'));

/** Keeps the last 4 KB of the node's stderr (shown as it comes with E2E_VERBOSE), draining the pipe. */
function stderrTail(child: NodeProcess): () => string {
  let tail = '';
  child.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4096);
    if (process.env.E2E_VERBOSE) process.stderr.write(chunk);
  });
  return () => tail;
}

/** How the node ended (exit code or signal), waiting up to `withinMs`; undefined while it runs. */
async function exited(child: NodeProcess, withinMs: number): Promise<string | undefined> {
  const status = () => (child.exitCode ?? child.signalCode ?? undefined)?.toString();
  if (status() !== undefined) return status();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, withinMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return status();
}

/** The node's first stdout line, or its stderr when it exits (or hangs) before listening. */
async function readiness(child: NodeProcess, stderr: () => string): Promise<SolanaNodeReady> {
  const lines = createInterface({ input: child.stdout });
  let timer: NodeJS.Timeout | undefined;
  try {
    const line = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code, signal) =>
        reject(new Error(`the Solana node exited (${code ?? signal}) before it listened: ${stderr()}`)),
      );
      timer = setTimeout(
        () => reject(new Error(`the Solana node did not listen within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
    });
    return JSON.parse(line) as SolanaNodeReady;
  } finally {
    clearTimeout(timer);
    lines.close();
    child.stdout.resume();
  }
}

function stop(child: NodeProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.ref();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin.end();
  });
}
