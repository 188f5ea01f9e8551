/**
 * Deposits on the local chain of `pnpm start`: the deployment's deposit wallet (a key pair made
 * once under DATA_DIR and kept there), the file that tells the operators' commands where the
 * local chain of the running system is, and a payment of a deposit as a person's wallet makes one
 * (a signed SPL transfer with a memo), which `pnpm deposit:pay` runs.
 *
 * Light on purpose: the all-in-one loads it, and the Solana libraries stay in the chain's process.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { keptKeyPair } from './kept-keys.js';

const CHAIN_FILE = 'local-chain.json';

/**
 * The deposit wallet of the deployment under `dataDir`, made on the first start and read on every
 * later one, so the address people were shown stays the address. Only the address is answered:
 * the secret stays in the file (mode 600), for an operator who moves the funds.
 */
export function localDepositWallet(dataDir: string): { address: string } {
  return { address: keptKeyPair(dataDir, 'deposit-wallet.json').address };
}

const localChainSchema = z.object({
  facilitator_url: z.url(),
  rpc_url: z.url(),
  network: z.string(),
  mint: z.string(),
  deposit_address: z.string(),
});
export type LocalChain = z.infer<typeof localChainSchema>;

/** Written by `pnpm start` at each start: where its local chain answers, for `pnpm deposit:pay`. */
export function writeLocalChain(dataDir: string, chain: LocalChain): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, CHAIN_FILE), `${JSON.stringify(chain, null, 2)}\n`);
}

/** The local chain of the system running on `dataDir`, or undefined when none ever ran there. */
export function readLocalChain(dataDir: string): LocalChain | undefined {
  const file = join(dataDir, CHAIN_FILE);
  if (!existsSync(file)) return undefined;
  return localChainSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/** A deposit paid: the transaction's signature and the new wallet that paid it. */
export interface PaidDeposit {
  signature: string;
  payer: string;
}

/**
 * Pays `amountAtomic` of the local chain's USDC to `to` with `memo`, as a person's wallet does:
 * a new wallet funded by the chain's faucet (with SOL for its fee) signs an SPL transfer with a
 * memo instruction. Through the facilitator's /local controls, since the chain runs in its process.
 */
export async function payLocalDeposit(options: {
  facilitatorUrl: string;
  to: string;
  memo: string;
  amountAtomic: bigint;
}): Promise<PaidDeposit> {
  const base = options.facilitatorUrl.replace(/\/+$/, '');
  const call = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`the local chain answered ${res.status} to ${path}`);
    return (await res.json()) as T;
  };
  const amount = options.amountAtomic.toString();
  const wallet = await call<{ address: string; secret_key: string }>('/local/wallet', {
    sol: 1,
    usdc: amount,
  });
  const { signature } = await call<{ signature: string }>('/local/transfer', {
    from: wallet.secret_key,
    to: options.to,
    amount,
    memo: options.memo,
  });
  return { signature, payer: wallet.address };
}
