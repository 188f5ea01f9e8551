/**
 * Starts the local chain's process (chain-process.ts, from source with tsx) and waits until it
 * listens. Light on purpose: the all-in-one loads it, and the Solana libraries stay in the child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ENTRY = join(HERE, 'chain-process.ts');
const START_TIMEOUT_MS = 60_000;

export interface LocalChainProcessOptions {
  /** The facilitator's port; default any free one. */
  port?: number;
  /** The seller's address (X402_PAY_TO); default a new key. */
  payTo?: string;
  /** A kept key pair file (kept-keys.ts) whose key pays the fees; default a new key. */
  feePayerKeyFile?: string;
  /** Owners whose token accounts of the mint are opened before it is ready. */
  tokenAccounts?: string[];
}

/** The local chain and its x402 facilitator, running in a child process. */
export interface LocalChainProcess {
  /** Base URL of the facilitator API (/verify, /settle, /supported, /local/...): FACILITATOR_URL. */
  url: string;
  /** JSON-RPC of the same chain. */
  rpcUrl: string;
  /** CAIP-2 id of the chain (Solana devnet's). */
  network: string;
  /** The 6-decimal test mint (at the devnet USDC address). */
  mint: string;
  /** The seller's address: its token account exists. */
  payTo: string;
  feePayer: string;
  pid: number;
  /** Calls `listener` once if the process ends before `close()` (its chain, in memory, is gone). */
  onExit(listener: (how: string) => void): void;
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

/**
 * litesvm 0.8's native code sometimes aborts while the chain is being set up (std::bad_alloc,
 * about one start in three on this machine): a start that dies before it is ready is tried again.
 */
export async function startLocalChainProcess(
  options: LocalChainProcessOptions = {},
): Promise<LocalChainProcess> {
  const env = {
    ...process.env,
    PORT: String(options.port ?? 0),
    HOST: '127.0.0.1',
    X402_PAY_TO: options.payTo ?? '',
    X402_FEE_PAYER_KEY_FILE: options.feePayerKeyFile ?? '',
    LOCAL_CHAIN_TOKEN_ACCOUNTS: (options.tokenAccounts ?? []).join(','),
    X402_FACILITATOR_CHILD: '1',
  };
  for (let attempt = 1; ; attempt++) {
    const child = spawn(
      process.execPath,
      ['--max-semi-space-size=8', '--conditions=source', '--import', 'tsx', ENTRY],
      // Its stdin closes when this process ends, however it ends (a test's SIGKILL included): it goes too.
      { cwd: dirname(HERE), env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      if (process.env.E2E_VERBOSE) process.stderr.write(chunk);
    });
    try {
      return handleOf(child, await waitReady(child));
    } catch (err) {
      if (attempt >= 5 || (child.exitCode === null && child.signalCode === null)) {
        child.kill('SIGKILL');
        throw err;
      }
    }
  }
}

function handleOf(child: ChildProcess, ready: Ready): LocalChainProcess {
  let closing = false;
  return {
    url: ready.url,
    rpcUrl: ready.rpc_url,
    network: ready.network,
    mint: ready.mint,
    payTo: ready.pay_to,
    feePayer: ready.fee_payer,
    pid: child.pid!,
    onExit: (listener) => {
      child.once('exit', (code, signal) => {
        if (!closing) listener(String(code ?? signal));
      });
    },
    close: () => {
      closing = true;
      return stop(child);
    },
  };
}

function waitReady(child: ChildProcess): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the local chain did not start within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the local chain exited with ${code ?? signal} before it was ready`));
    });
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
