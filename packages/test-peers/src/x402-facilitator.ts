import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { FacilitatorMode } from './x402-facilitator-process.js';

export type { FacilitatorMode } from './x402-facilitator-process.js';

const ENTRY = join(dirname(fileURLToPath(import.meta.url)), 'x402-facilitator-process.ts');

export interface LocalWallet {
  address: string;
  /** Base58 of the 64-byte secret key, as Solana wallets export it. */
  secretKey: string;
}

/** The local x402 facilitator and its LiteSVM chain, running in a child process. */
export interface X402Facilitator {
  /** Base URL of the facilitator API (/verify, /settle, /supported): FACILITATOR_URL. */
  url: string;
  /** JSON-RPC of the same chain, for the paying client (getLatestBlockhash, getAccountInfo). */
  rpcUrl: string;
  /** CAIP-2 id of the chain (Solana devnet's). */
  network: string;
  /** The 6-decimal test mint (at the devnet USDC address). */
  mint: string;
  /** The seller's address: its token account exists. */
  payTo: string;
  feePayer: string;
  /** A new key pair with `usdc` atomic units in its token account (and `sol`, default 0: the facilitator pays fees). */
  wallet(funds?: { usdc?: number; sol?: number }): Promise<LocalWallet>;
  /** Opens `owner`'s associated token account of the mint (as a deposit wallet needs); its address. */
  openTokenAccount(owner: string): Promise<string>;
  /**
   * A signed SPL transfer of `amount` atomic units from `from`'s token account to `to`'s, with a
   * memo instruction when `memo` is given (a wallet paying a deposit); answers the signature.
   */
  transfer(options: { from: LocalWallet; to: string; amount: number; memo?: string }): Promise<string>;
  /** Atomic units of the mint held by `owner`'s associated token account. */
  balance(owner: string): Promise<bigint>;
  /** Makes the chain's current blockhash stale: transactions signed over it no longer land. */
  expireBlockhash(): Promise<void>;
  setMode(mode: FacilitatorMode): Promise<void>;
  /** The facilitator's own time in /verify and /settle, ms per call. */
  timings(): Promise<{ verify: number[]; settle: number[] }>;
  close(): Promise<void>;
}

interface Ready {
  url: string;
  rpc_url: string;
  network: string;
  mint: string;
  pay_to: string;
  fee_payer: string;
}

/** Starts the facilitator process (from source, with tsx) and resolves once it listens. */
export async function startX402Facilitator(options: { port?: number } = {}): Promise<X402Facilitator> {
  const { child, ready } = await launch(options.port ?? 0);
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${ready.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`facilitator ${path}: ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    url: ready.url,
    rpcUrl: ready.rpc_url,
    network: ready.network,
    mint: ready.mint,
    payTo: ready.pay_to,
    feePayer: ready.fee_payer,
    wallet: async (funds = {}) => {
      const w = await call<{ address: string; secret_key: string }>('/local/wallet', funds);
      return { address: w.address, secretKey: w.secret_key };
    },
    openTokenAccount: async (owner) =>
      (await call<{ address: string }>('/local/token-account', { owner })).address,
    transfer: async ({ from, to, amount, memo }) =>
      (
        await call<{ signature: string }>('/local/transfer', {
          from: from.secretKey,
          to,
          amount: String(amount),
          ...(memo === undefined ? {} : { memo }),
        })
      ).signature,
    balance: async (owner) => BigInt((await call<{ amount: string }>(`/local/balance/${owner}`)).amount),
    expireBlockhash: async () => void (await call('/local/expire-blockhash', {})),
    setMode: async (mode) => void (await call('/local/mode', mode)),
    timings: () => call('/local/timings'),
    close: () => stop(child),
  };
}

/**
 * litesvm 0.8's native code sometimes aborts while the chain (the Solana peer's node, a child of
 * the facilitator) is being set up (std::bad_alloc, about one start in three on this machine): a
 * start that dies before it is ready is tried again.
 */
async function launch(port: number, tries = 5): Promise<{ child: ChildProcess; ready: Ready }> {
  for (let attempt = 1; ; attempt++) {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', ENTRY], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        X402_PAY_TO: '',
        X402_FACILITATOR_CHILD: '1',
      },
      // Its stdin closes when this process ends, however it ends (a test's SIGKILL included): it goes too.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (process.env.E2E_VERBOSE) process.stderr.write(chunk);
    });
    try {
      return { child, ready: await waitReady(child) };
    } catch (err) {
      if (attempt >= tries || (child.exitCode === null && child.signalCode === null)) throw err;
    }
  }
}

function waitReady(child: ChildProcess): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the x402 facilitator did not start within 60 s')),
      60_000,
    );
    child.once('exit', (code) => reject(new Error(`the x402 facilitator exited with ${code}`)));
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { ready?: Ready };
        if (parsed.ready) {
          clearTimeout(timer);
          resolve(parsed.ready);
        }
      } catch {
        // not our line
      }
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
