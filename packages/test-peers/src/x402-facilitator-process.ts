/**
 * The local x402 facilitator as a process of its own: the facilitator of `@x402/core` with the
 * exact SVM scheme of `@x402/svm`, over a LiteSVM chain (the Solana peer, whose node runs in a
 * child process of this one: LiteSVM leaves its thread's floating-point state dirty, so it never
 * shares a process with Postgres). The signer signs with a kit key pair and simulates, sends and
 * confirms on that chain over its JSON-RPC.
 *
 * Started by `startX402Facilitator` (x402-facilitator.ts) or `pnpm x402:facilitator`; prints one
 * JSON line `{"ready": {...}}` on stdout once it listens. Settings: `PORT` (0: any; `pnpm
 * x402:facilitator` listens on 4020, the x402 service's default FACILITATOR_URL), `HOST`, and
 * `X402_PAY_TO`: the seller's address whose token account the chain opens (default a new key).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorSvmSigner, type FacilitatorSvmSigner } from '@x402/svm';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';
import bs58 from 'bs58';
import { startSolanaPeer, type SolanaPeer } from './solana-peer.js';

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

interface FacilitatorState {
  peer: SolanaPeer;
  facilitator: x402Facilitator;
  feePayer: Keypair;
  payTo: PublicKey;
  mode: FacilitatorMode;
  /** Calls of /verify and /settle, and the time the facilitator spent in them (ms). */
  timings: { verify: number[]; settle: number[] };
}

/**
 * The facilitator's signer: x402's own `toFacilitatorSvmSigner` (a kit key pair, the chain's
 * JSON-RPC for simulation, sending and confirmation), except that a simulation is of the
 * transaction signed by the fee payer too: LiteSVM verifies every signature when it simulates.
 */
async function liteSvmSigner(peer: SolanaPeer, feePayer: Keypair): Promise<FacilitatorSvmSigner> {
  const kitSigner = await createKeyPairSignerFromBytes(feePayer.secretKey);
  const signing = toFacilitatorSvmSigner(kitSigner, { defaultRpcUrl: peer.url });
  return {
    ...signing,
    simulateTransaction: async (tx, network, options) =>
      signing.simulateTransaction(
        await signing.signTransaction(tx, kitSigner.address, network),
        network,
        options,
      ),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(json);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function facilitatorRoute(
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

/**
 * Test controls under /local: wallets, token accounts, signed transfers (with a memo, as a wallet
 * pays a deposit), balances, blockhash expiry, the facilitator's mode.
 */
async function localRoute(
  state: FacilitatorState,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { peer } = state;
  if (path === '/local/info') return send(res, 200, info(state));
  if (path === '/local/wallet' && req.method === 'POST') {
    const { sol, usdc } = (await readJson(req)) as { sol?: number; usdc?: number | string };
    const wallet = await peer.wallet({
      sol: sol ?? 0,
      ...(usdc === undefined ? {} : { usdc: BigInt(usdc) }),
    });
    return send(res, 200, {
      address: wallet.publicKey.toBase58(),
      secret_key: bs58.encode(wallet.secretKey),
    });
  }
  if (path.startsWith('/local/balance/')) {
    const owner = new PublicKey(path.slice('/local/balance/'.length));
    return send(res, 200, { amount: (await peer.tokenBalance(peer.ata(owner))).toString() });
  }
  if (path === '/local/token-account' && req.method === 'POST') {
    const { owner } = (await readJson(req)) as { owner: string };
    return send(res, 200, { address: (await peer.createTokenAccount(new PublicKey(owner))).toBase58() });
  }
  if (path === '/local/transfer' && req.method === 'POST') {
    const { from, to, amount, memo } = (await readJson(req)) as {
      from: string;
      to: string;
      amount: number | string;
      memo?: string;
    };
    const signature = await peer.transfer({
      from: Keypair.fromSecretKey(bs58.decode(from)),
      toOwner: new PublicKey(to),
      amount: BigInt(amount),
      ...(memo === undefined ? {} : { memo }),
    });
    return send(res, 200, { signature });
  }
  if (path === '/local/expire-blockhash' && req.method === 'POST') {
    return send(res, 200, { blockhash: await peer.expireBlockhash() });
  }
  if (path === '/local/mode' && req.method === 'POST') {
    state.mode = (await readJson(req)) as FacilitatorMode;
    return send(res, 200, state.mode);
  }
  if (path === '/local/timings') return send(res, 200, state.timings);
  send(res, 404, { error: 'not found' });
}

function info(state: FacilitatorState) {
  return {
    rpc_url: state.peer.url,
    network: state.peer.network,
    mint: state.peer.mint.toBase58(),
    decimals: state.peer.decimals,
    pay_to: state.payTo.toBase58(),
    fee_payer: state.feePayer.publicKey.toBase58(),
  };
}

async function main(): Promise<void> {
  const peer = await startSolanaPeer();
  const feePayer = Keypair.generate();
  await peer.airdrop(feePayer.publicKey, 100 * LAMPORTS_PER_SOL);
  const payTo = process.env.X402_PAY_TO
    ? new PublicKey(process.env.X402_PAY_TO)
    : Keypair.generate().publicKey;
  await peer.createTokenAccount(payTo);
  const facilitator = new x402Facilitator();
  registerExactSvmScheme(facilitator, {
    signer: await liteSvmSigner(peer, feePayer),
    networks: peer.network as `${string}:${string}`,
  });
  const state: FacilitatorState = {
    peer,
    facilitator,
    feePayer,
    payTo,
    mode: { mode: 'normal' },
    timings: { verify: [], settle: [] },
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    facilitatorRoute(state, path, req, res)
      .then((done) => (done ? undefined : localRoute(state, path, req, res)))
      .catch((err: unknown) => {
        process.stderr.write(`x402 facilitator: ${String(err)}\n`);
        if (!res.headersSent) send(res, 500, { error: 'internal error' });
      });
  });
  const port = Number(
    process.env.PORT ?? (process.env.npm_lifecycle_event === 'x402:facilitator' ? 4020 : 0),
  );
  await new Promise<void>((resolve) => server.listen(port, process.env.HOST ?? '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.stdout.write(`${JSON.stringify({ ready: { url, ...info(state) } })}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    void peer.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  if (process.env.X402_FACILITATOR_CHILD) {
    process.stdin.once('end', stop);
    process.stdin.resume();
  }
}

void main();
