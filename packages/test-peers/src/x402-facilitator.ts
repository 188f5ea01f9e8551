import { startLocalChainProcess, type FacilitatorMode, type LocalChainProcess } from '@meridian/local-chain';

export type { FacilitatorMode } from '@meridian/local-chain';

export interface LocalWallet {
  address: string;
  /** Base58 of the 64-byte secret key, as Solana wallets export it. */
  secretKey: string;
}

/**
 * The local x402 facilitator and its LiteSVM chain (@meridian/local-chain), in one child process,
 * with the controls a test drives it by: wallets, transfers, balances, failure modes.
 */
export interface X402Facilitator extends Omit<LocalChainProcess, 'onExit'> {
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

/** Starts the facilitator process (from source, with tsx) and resolves once it listens. */
export async function startX402Facilitator(options: { port?: number } = {}): Promise<X402Facilitator> {
  const chain = await startLocalChainProcess(options);
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${chain.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`facilitator ${path}: ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    url: chain.url,
    rpcUrl: chain.rpcUrl,
    network: chain.network,
    mint: chain.mint,
    payTo: chain.payTo,
    feePayer: chain.feePayer,
    pid: chain.pid,
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
    close: () => chain.close(),
  };
}
