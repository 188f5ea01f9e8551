/**
 * The Solana node of `startSolanaPeer` (solana-peer.ts), run as a process of its own:
 * `node --conditions=source --import tsx solana-node.ts '<options JSON>'`. It writes one JSON line
 * on stdout once it listens (SolanaNodeReady) and exits when its stdin closes, i.e. with its parent.
 *
 * It runs apart from the tests because LiteSVM's native code leaves the floating-point state of
 * the thread that calls it dirty once an SPL program has run (`-0 % 60` answers NaN afterwards,
 * so pg in the same process would write dates as "+00:NaN" on a UTC machine). The same dirt can
 * abort this process (std::bad_alloc, seen after ~5 back-to-back transfers with no RPC read between
 * them); the test's helpers then fail with its exit signal and stderr.
 *
 * Two servers on loopback: the Solana JSON-RPC methods of the local chain (@meridian/local-chain),
 * and on a port of its own the control methods (`peer_*`) that the test's helpers call. Neither
 * answers the other's methods.
 */
import { Keypair } from '@solana/web3.js';
import { z } from 'zod';
import {
  addressSchema,
  LocalChain,
  RpcError,
  decodeTransaction,
  invalidParams,
  listenJsonRpc,
  solanaDispatch,
  type Dispatch,
  type Landed,
  type LandedTransaction,
} from '@meridian/local-chain/node';
import type { SolanaNodeReady, SolanaPeerOptions } from './solana-peer.js';

const address = addressSchema;
/** A key pair as the bytes of its 64-byte secret key, base64. */
const secretKey = z.base64().transform((value, ctx) => {
  try {
    return Keypair.fromSecretKey(Buffer.from(value, 'base64'));
  } catch {
    ctx.addIssue({ code: 'custom', message: 'invalid secret key' });
    return z.NEVER;
  }
});
/** Atomic units (or lamports) as a decimal string: they may not fit a JSON number. */
const atomic = z
  .string()
  .regex(/^\d{1,20}$/)
  .transform((value) => BigInt(value));
const transferParams = z.object({
  from: secretKey,
  toOwner: address,
  memo: z.string().optional(),
  memoProgram: z.enum(['v1', 'current']).optional(),
  mint: address.optional(),
});

const secretOf = (keypair: Keypair) => Buffer.from(keypair.secretKey).toString('base64');
const publicOf = ({ transaction: _, ...landed }: Landed): LandedTransaction => landed;

function parsed<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const result = schema.safeParse(params ?? {});
  if (!result.success) throw invalidParams(z.prettifyError(result.error));
  return result.data;
}

/** What the test's helpers call (solana-peer.ts): by-name params, key pairs as secret-key bytes. */
const CONTROL: Record<string, (chain: LocalChain, params: unknown) => unknown> = {
  peer_wallet: (chain, params) => {
    const funds = parsed(
      z.object({ sol: z.number().nonnegative().max(1e6).optional(), usdc: atomic.optional() }),
      params,
    );
    return secretOf(chain.wallet(funds));
  },
  peer_airdrop: (chain, params) => {
    const { to, lamports } = parsed(z.object({ to: address, lamports: atomic }), params);
    chain.airdrop(to, lamports);
    return null;
  },
  peer_createTokenAccount: (chain, params) => {
    const { owner, mint } = parsed(z.object({ owner: address, mint: address.optional() }), params);
    return chain.createTokenAccount(owner, mint).toBase58();
  },
  peer_mintTo: (chain, params) => {
    const { owner, amount, mint } = parsed(
      z.object({ owner: address, amount: atomic, mint: address.optional() }),
      params,
    );
    return chain.mintTo(owner, amount, mint);
  },
  peer_createMint: (chain, params) => {
    const options = parsed(
      z.object({ address: address.optional(), decimals: z.number().int().min(0).max(18).optional() }),
      params,
    );
    return chain.createMint(options).toBase58();
  },
  peer_transfer: (chain, params) =>
    chain.transfer(parsed(transferParams.extend({ amount: atomic }), params), false),
  peer_failingTransfer: (chain, params) =>
    chain.transfer({ ...parsed(transferParams, params), amount: 0n }, true),
  peer_send: (chain, params) => {
    const { wire, allowFailure } = parsed(z.object({ wire: z.base64(), allowFailure: z.boolean() }), params);
    return publicOf(chain.execute(decodeTransaction(Buffer.from(wire, 'base64')), allowFailure));
  },
  peer_tokenBalance: (chain, params) => {
    const { account } = parsed(z.object({ account: address }), params);
    return chain.tokenBalance(account).toString();
  },
  peer_history: (chain) => chain.history.map(publicOf),
  /** A new blockhash: transactions signed over the old one no longer land (BlockhashNotFound). */
  peer_expireBlockhash: (chain) => chain.expireBlockhash(),
};

function controlDispatch(chain: LocalChain, calls: Map<string, number>): Dispatch {
  return (name, params) => {
    if (name === 'peer_calls') return Object.fromEntries(calls);
    const method = Object.hasOwn(CONTROL, name) ? CONTROL[name] : undefined;
    if (!method) throw new RpcError(-32601, 'Method not found');
    return method(chain, params);
  };
}

// ---------------------------------------------------------------- the process

const options = z
  .object({
    mint: z.string().optional(),
    decimals: z.number().int().min(0).max(18).optional(),
    genesisHash: z.string().optional(),
  })
  .parse(JSON.parse(process.argv[2] ?? '{}')) satisfies SolanaPeerOptions;
const chain = new LocalChain(options);
const calls = new Map<string, number>();
const rpc = await listenJsonRpc(solanaDispatch(chain, calls));
const control = await listenJsonRpc(controlDispatch(chain, calls));
// With its parent gone (close(), exit or crash), stdin reaches its end: the node goes too.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
const ready: SolanaNodeReady = {
  url: rpc.url,
  control: control.url,
  network: chain.network,
  mint: chain.mint.toBase58(),
  decimals: chain.decimals,
  authority: secretOf(chain.authority),
};
process.stdout.write(`${JSON.stringify(ready)}\n`);
