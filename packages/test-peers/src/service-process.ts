import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: entries are given from it, as in `services/identity/src/main.ts`. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface ServiceProcess {
  url: string;
  /** The process id (a service may name itself by it, e.g. analysis's worker id). */
  pid: number;
  /** SIGKILL: no drain, to see how the rest behave. */
  kill(): Promise<void>;
  /** SIGTERM, so it drains as in production; SIGKILL if it has not exited within 10 s. */
  close(): Promise<void>;
}

/** A loopback port free at the time of asking. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Runs `entry` (a main.ts, from the repository root) from source as its own process on a free
 * port (or on `env.PORT` when it names one, for a peer that must know the address first), and
 * resolves once its /ready answers. The child inherits this process's environment, so
 * the suite's log capture directory (MERIDIAN_LOG_CAPTURE_DIR) collects its log lines too, for the
 * teardown's secret scan; `env` comes on top. Its stderr shows only with E2E_VERBOSE set, or
 * when it dies on its own. `readyTimeoutMs` (60 s) is for the all-in-one's first start, which
 * creates a database and loads the replay before it is ready.
 */
export async function startServiceProcess(
  entry: string,
  env: Record<string, string>,
  { readyTimeoutMs = 60_000 }: { readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const port = env.PORT && env.PORT !== '0' ? Number(env.PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = launch(entry, { ...env, PORT: String(port) });
  reportUnexpectedExit(entry, child);
  try {
    await waitReady(url, child, readyTimeoutMs);
  } catch (err) {
    await stop(child, 'SIGKILL');
    throw err;
  }
  return { url, pid: child.pid!, kill: () => stop(child, 'SIGKILL'), close: () => stop(child, 'SIGTERM') };
}

function launch(entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const tail: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    if (process.env.E2E_VERBOSE) process.stderr.write(chunk);
    tail.push(chunk.toString('utf8'));
    if (tail.length > STDERR_TAIL_CHUNKS) tail.shift();
  });
  stderrTails.set(child, tail);
  return child;
}

const STDERR_TAIL_CHUNKS = 40;
const stderrTails = new WeakMap<ChildProcess, string[]>();
const stopping = new WeakSet<ChildProcess>();

/**
 * A peer that dies on its own makes the test fail later and elsewhere (a 503 from the service
 * that called it), so its death and the end of its stderr are said where it happens.
 */
function reportUnexpectedExit(entry: string, child: ChildProcess): void {
  child.once('exit', (code, signal) => {
    if (stopping.has(child)) return;
    const tail = (stderrTails.get(child) ?? []).join('').slice(-4_000);
    process.stderr.write(
      `${entry} (pid ${child.pid}) exited on its own: code ${code}, signal ${signal}\n${tail}\n`,
    );
  });
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${url} exited with ${child.exitCode} before it was ready`);
    const ok = await fetch(`${url}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms`);
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  stopping.add(child);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/** Runs a one-shot script (e.g. an operator's command line) from source; its exit code and output. */
export async function runScript(
  entry: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
