/**
 * The local chain of `pnpm start`, started when it is first needed: two loopback servers stand
 * where the facilitator and the chain's JSON-RPC will be, and the first request that needs the
 * chain (a paid call's verify or settle, a wallet's blockhash, `deposit:pay`, `x402:pay`) starts
 * its process, waits until it is ready and is then passed on, like every request after it. Until
 * then the chain costs no memory.
 *
 * The deposit watcher reads the deposit account's history every second from the start: while no
 * chain runs, that history is the one a new chain has, empty, and the gate answers so without
 * starting one. The addresses the services are given at start (the seller, the fee payer the
 * gateway names in its challenge, the deposit wallet) are key pairs kept under DATA_DIR, which
 * the chain opens or funds when it starts.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEVNET_GENESIS_HASH, DEVNET_USDC_MINT, networkOf } from './devnet.js';
import { keptKeyPair } from './kept-keys.js';
import { startLocalChainProcess, type LocalChainProcess } from './launch.js';

// Not an ES import: that would load undici and http2 into the all-in-one for nothing.
const http = process.getBuiltinModule('node:http');

export interface LazyLocalChain {
  /** Where the facilitator answers (/verify, /settle, /supported, /local/...): FACILITATOR_URL. */
  facilitatorUrl: string;
  /** Where the chain's JSON-RPC answers: SOLANA_RPC_URL. */
  rpcUrl: string;
  network: string;
  mint: string;
  /** The seller's address (X402_PAY_TO) and the fee payer (X402_FEE_PAYER), kept under DATA_DIR. */
  payTo: string;
  feePayer: string;
  close(): Promise<void>;
}

export interface LazyLocalChainOptions {
  dataDir: string;
  /** The facilitator's port (any free one when it is taken); default any free one. */
  port?: number;
  /** Owners whose token accounts the chain opens when it starts (the deposit wallet). */
  tokenAccounts?: string[];
  /** Where the gate says that the chain starts, is up, or ended. */
  log?: (line: string) => void;
}

export async function startLazyLocalChain(options: LazyLocalChainOptions): Promise<LazyLocalChain> {
  const log = options.log ?? (() => {});
  const payTo = keptKeyPair(options.dataDir, 'pay-to-wallet.json').address;
  const feePayer = keptKeyPair(options.dataDir, 'fee-payer.json');
  let running: Promise<LocalChainProcess> | undefined;
  const start = async (): Promise<LocalChainProcess> => {
    log('local chain: starting (first paid call or deposit)…');
    const began = Date.now();
    const chain = await startLocalChainProcess({
      payTo,
      feePayerKeyFile: feePayer.file,
      tokenAccounts: options.tokenAccounts ?? [],
    }).catch((err: unknown) => {
      running = undefined;
      throw err;
    });
    log(`local chain: up in ${((Date.now() - began) / 1000).toFixed(1)} s (pid ${chain.pid})`);
    chain.onExit((how) => {
      running = undefined;
      log(`local chain: its process ended (${how}); the next paid call or deposit starts a new chain`);
    });
    return chain;
  };
  const target = async (pick: (chain: LocalChainProcess) => string) => pick(await (running ??= start()));
  const facilitator = await listen(options.port ?? 0, (req, res, body) =>
    forward(
      req,
      res,
      body,
      target((chain) => chain.url),
    ),
  );
  const rpc = await listen(0, (req, res, body) => {
    const id = running ? undefined : historyRead(body);
    if (id !== undefined) return reply(res, 200, { jsonrpc: '2.0', id, result: [] });
    forward(
      req,
      res,
      body,
      target((chain) => chain.rpcUrl),
    );
  });
  return {
    facilitatorUrl: facilitator.url,
    rpcUrl: rpc.url,
    network: networkOf(DEVNET_GENESIS_HASH),
    mint: DEVNET_USDC_MINT,
    payTo,
    feePayer: feePayer.address,
    close: async () => {
      await Promise.all([closeServer(facilitator.server), closeServer(rpc.server)]);
      const chain = running;
      running = undefined;
      await chain?.then((c) => c.close()).catch(() => {});
    },
  };
}

/** The id of a lone getSignaturesForAddress request, the watcher's read; undefined for anything else. */
function historyRead(body: Buffer): string | number | null | undefined {
  try {
    const request = JSON.parse(body.toString('utf8')) as { method?: unknown; id?: unknown };
    if (request?.method !== 'getSignaturesForAddress') return undefined;
    return typeof request.id === 'string' || typeof request.id === 'number' ? request.id : null;
  } catch {
    return undefined;
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/** A loopback server handing each request with its whole body; `port` when free, else any. */
async function listen(port: number, handle: Handler): Promise<{ server: Server; url: string }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  const bind = (p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await bind(port).catch(() => bind(0));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Passes the request on to the chain's process once it is ready; 503 when it could not start. */
function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, base: Promise<string>): void {
  base.then(
    (url) => {
      const to = new URL(req.url ?? '/', url);
      const out = http.request(
        to,
        { method: req.method, headers: { ...req.headers, host: to.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () =>
        res.headersSent ? res.destroy() : reply(res, 502, { error: 'the local chain did not answer' }),
      );
      out.end(body);
    },
    (err: unknown) => reply(res, 503, { error: `the local chain did not start: ${String(err)}` }),
  );
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
