/**
 * The facilitator's HTTP routes: x402's /verify, /settle and /supported (with the modes tests use
 * to make it fail), and under /local the chain's faucet and wallet controls that `x402:pay`,
 * `deposit:pay` and the tests call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Keypair, type PublicKey } from '@solana/web3.js';
import type { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import bs58 from 'bs58';
import { z } from 'zod';
import type { LocalChain } from '../node/chain.js';
import { addressSchema } from '../node/params.js';

/** How the facilitator's /verify and /settle behave, for tests of the seller's failure paths. */
export type FacilitatorMode =
  | { mode: 'normal' }
  /** /verify, /settle and /supported answer 503. */
  | { mode: 'down' }
  /** Every facilitator answer waits `delayMs` first. */
  | { mode: 'slow'; delayMs: number }
  /** /settle answers a failed settlement (the transaction is not sent). */
  | { mode: 'settle_fails' }
  /** /settle answers `settlement_pending` with a transaction hash, without sending it. */
  | { mode: 'settle_pending' };

export interface FacilitatorState {
  chain: LocalChain;
  /** The chain's JSON-RPC, for clients that sign over its blockhash. */
  rpcUrl: string;
  facilitator: x402Facilitator;
  feePayer: Keypair;
  payTo: PublicKey;
  mode: FacilitatorMode;
  /** Calls of /verify and /settle, and the time the facilitator spent in them (ms). */
  timings: { verify: number[]; settle: number[] };
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(json);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function facilitatorRoute(
  state: FacilitatorState,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  if (path !== '/verify' && path !== '/settle' && path !== '/supported') return false;
  const { mode } = state;
  if (mode.mode === 'down') return (send(res, 503, { error: 'facilitator unavailable' }), true);
  if (mode.mode === 'slow') await sleep(mode.delayMs);
  if (path === '/supported') return (send(res, 200, state.facilitator.getSupported()), true);
  const body = (await readJson(req)) as {
    paymentPayload: PaymentPayload;
    paymentRequirements: PaymentRequirements;
  };
  const started = performance.now();
  if (path === '/verify') {
    const answer = await state.facilitator.verify(body.paymentPayload, body.paymentRequirements);
    state.timings.verify.push(performance.now() - started);
    return (send(res, 200, answer), true);
  }
  if (mode.mode === 'settle_fails' || mode.mode === 'settle_pending') {
    const pending = mode.mode === 'settle_pending';
    return (
      send(res, 200, {
        success: false,
        errorReason: pending ? 'settlement_pending' : 'transaction_failed',
        transaction: pending ? bs58.encode(Keypair.generate().secretKey.subarray(0, 64)) : '',
        network: body.paymentRequirements.network,
        payer: '',
      }),
      true
    );
  }
  const answer = await state.facilitator.settle(body.paymentPayload, body.paymentRequirements);
  state.timings.settle.push(performance.now() - started);
  return (send(res, 200, answer), true);
}

const address = addressSchema;
/** Atomic units as a decimal string or a whole number: they may not fit a JSON number. */
const atomic = z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()]).transform(BigInt);
const walletBody = z.object({ sol: z.number().nonnegative().max(1e6).optional(), usdc: atomic.optional() });
const transferBody = z.object({
  from: z.string().transform((value, ctx) => {
    try {
      return Keypair.fromSecretKey(bs58.decode(value));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'invalid secret key' });
      return z.NEVER;
    }
  }),
  to: address,
  amount: atomic,
  memo: z.string().optional(),
});
const modeBody = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('normal') }),
  z.object({ mode: z.literal('down') }),
  z.object({ mode: z.literal('slow'), delayMs: z.number().int().nonnegative().max(120_000) }),
  z.object({ mode: z.literal('settle_fails') }),
  z.object({ mode: z.literal('settle_pending') }),
]);

/** Thrown for a /local body that does not parse: answered 400. */
export class BadRequest extends Error {}

const parsed = async <T extends z.ZodType>(schema: T, req: IncomingMessage): Promise<z.output<T>> => {
  const result = schema.safeParse(await readJson(req));
  if (!result.success) throw new BadRequest(z.prettifyError(result.error));
  return result.data;
};

/**
 * Controls under /local: wallets funded by the faucet, token accounts, signed transfers (with a
 * memo, as a wallet pays a deposit), balances, blockhash expiry, the facilitator's mode.
 */
export async function localRoute(
  state: FacilitatorState,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { chain } = state;
  const post = req.method === 'POST';
  if (path === '/local/info') return send(res, 200, info(state));
  if (path === '/local/wallet' && post) {
    const wallet = chain.wallet({ sol: 0, ...(await parsed(walletBody, req)) });
    return send(res, 200, {
      address: wallet.publicKey.toBase58(),
      secret_key: bs58.encode(wallet.secretKey),
    });
  }
  if (path.startsWith('/local/balance/')) {
    const owner = address.parse(path.slice('/local/balance/'.length));
    return send(res, 200, { amount: chain.tokenBalance(chain.ata(owner)).toString() });
  }
  if (path === '/local/token-account' && post) {
    const { owner } = await parsed(z.object({ owner: address }), req);
    return send(res, 200, { address: chain.createTokenAccount(owner).toBase58() });
  }
  if (path === '/local/transfer' && post) {
    const { from, to, amount, memo } = await parsed(transferBody, req);
    const transfer = { from, toOwner: to, amount, ...(memo === undefined ? {} : { memo }) };
    return send(res, 200, { signature: chain.transfer(transfer, false) });
  }
  if (path === '/local/expire-blockhash' && post)
    return send(res, 200, { blockhash: chain.expireBlockhash() });
  if (path === '/local/mode' && post) {
    state.mode = await parsed(modeBody, req);
    return send(res, 200, state.mode);
  }
  if (path === '/local/timings') return send(res, 200, state.timings);
  send(res, 404, { error: 'not found' });
}

/** What a client of the chain needs to know: its RPC, network, mint, the seller and the fee payer. */
export function info(state: FacilitatorState) {
  return {
    rpc_url: state.rpcUrl,
    network: state.chain.network,
    mint: state.chain.mint.toBase58(),
    decimals: state.chain.decimals,
    pay_to: state.payTo.toBase58(),
    fee_payer: state.feePayer.publicKey.toBase58(),
  };
}
