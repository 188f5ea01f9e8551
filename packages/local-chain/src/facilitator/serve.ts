/**
 * The local chain and its x402 facilitator in the process that calls `serveLocalChain`: a LiteSVM
 * chain with its JSON-RPC on a port of its own, and x402's facilitator (`@x402/core` with the exact
 * SVM scheme of `@x402/svm`) over it, whose signer signs with a kit key pair and simulates, sends
 * and confirms on that chain over its JSON-RPC.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorSvmSigner, type FacilitatorSvmSigner } from '@x402/svm';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';
import { z } from 'zod';
import { LocalChain } from '../node/chain.js';
import { listenJsonRpc } from '../node/json-rpc.js';
import { solanaDispatch } from '../node/rpc-methods.js';
import { BadRequest, facilitatorRoute, info, localRoute, send, type FacilitatorState } from './routes.js';

export interface LocalChainSettings {
  /** The facilitator's port (0: any free one) and address. */
  port: number;
  host: string;
  /** The seller's address, whose token account the chain opens; default a new key. */
  payTo?: string;
  /** The facilitator's fee payer; default a new key. */
  feePayer?: Keypair;
  /** Owners whose token accounts of the mint are opened at the start (the deposit wallet). */
  tokenAccounts?: string[];
}

export interface ServedLocalChain {
  /** The facilitator's base URL, and what /local/info answers. */
  url: string;
  info: ReturnType<typeof info>;
  close(): Promise<void>;
}

/**
 * x402's own `toFacilitatorSvmSigner` (a kit key pair, the chain's JSON-RPC for simulation,
 * sending and confirmation), except that a simulation is of the transaction signed by the fee
 * payer too: LiteSVM verifies every signature when it simulates.
 */
async function liteSvmSigner(rpcUrl: string, feePayer: Keypair): Promise<FacilitatorSvmSigner> {
  const kitSigner = await createKeyPairSignerFromBytes(feePayer.secretKey);
  const signing = toFacilitatorSvmSigner(kitSigner, { defaultRpcUrl: rpcUrl });
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

/**
 * How long the process idles after loading before its chain runs a program. A program run in the
 * first second of the process aborts it (std::bad_alloc, in most starts on this machine; after a
 * second none did in our runs): the window is litesvm's, the chain's state does not matter.
 */
const SETTLE_MS = 1_000;

export async function serveLocalChain(settings: LocalChainSettings): Promise<ServedLocalChain> {
  const chain = new LocalChain();
  const rpc = await listenJsonRpc(solanaDispatch(chain, new Map()));
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const feePayer = settings.feePayer ?? Keypair.generate();
  chain.airdrop(feePayer.publicKey, 100 * LAMPORTS_PER_SOL);
  const payTo = settings.payTo ? new PublicKey(settings.payTo) : Keypair.generate().publicKey;
  chain.createTokenAccount(payTo);
  for (const owner of settings.tokenAccounts ?? []) chain.createTokenAccount(new PublicKey(owner));
  const facilitator = new x402Facilitator();
  registerExactSvmScheme(facilitator, {
    signer: await liteSvmSigner(rpc.url, feePayer),
    networks: chain.network as `${string}:${string}`,
  });
  const state: FacilitatorState = {
    chain,
    rpcUrl: rpc.url,
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
        if (res.headersSent) return;
        if (err instanceof BadRequest || err instanceof z.ZodError || err instanceof SyntaxError)
          return send(res, 400, { error: err.message });
        process.stderr.write(`x402 facilitator: ${String(err)}\n`);
        send(res, 500, { error: 'internal error' });
      });
  });
  await new Promise<void>((resolve) => server.listen(settings.port, settings.host, resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = (s: typeof server) =>
    new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  return {
    url,
    info: info(state),
    close: async () => void (await Promise.all([closed(server), closed(rpc.server)])),
  };
}
