import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SERVICE_NAMES = ['identity', 'billing', 'analysis', 'data', 'x402', 'requests'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface System {
  gatewayUrl: string;
  serviceUrls: Record<ServiceName, string>;
  env: Record<string, string>;
  /** Kills one service process (SIGKILL: no drain) to see how the rest behave. */
  kill(name: ServiceName | 'gateway'): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function launch(entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (process.env.E2E_VERBOSE) process.stderr.write(chunk);
  });
  return child;
}

async function waitReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
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

/**
 * Every service and the gateway as its own process, on a fresh database of the machine's
 * Postgres and a private namespace of the machine's NATS.
 */
export async function startSystem(prefix: string, extraEnv: Record<string, string> = {}): Promise<System> {
  const database: TestDatabase = await createTestDatabase(prefix);
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '3',
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    BUS_NAMESPACE: `e2e${randomBytes(4).toString('hex')}`,
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const children = new Map<string, ChildProcess>();
  const serviceUrls = {} as Record<ServiceName, string>;
  try {
    await Promise.all(
      SERVICE_NAMES.map(async (name) => {
        const port = await freePort();
        serviceUrls[name] = `http://127.0.0.1:${port}`;
        const child = launch(`services/${name}/src/main.ts`, { ...env, PORT: String(port) });
        children.set(name, child);
        await waitReady(serviceUrls[name], child);
      }),
    );
    const gatewayPort = await freePort();
    const urls = Object.fromEntries(SERVICE_NAMES.map((n) => [`${n.toUpperCase()}_URL`, serviceUrls[n]]));
    const gateway = launch('gateway/src/main.ts', {
      ...env,
      ...urls,
      PORT: String(gatewayPort),
      METRICS_PORT: '0',
    });
    children.set('gateway', gateway);
    await waitReady(`http://127.0.0.1:${gatewayPort}`, gateway);
    return {
      gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
      serviceUrls,
      env,
      kill: (name) => killChild(children.get(name), 'SIGKILL'),
      stop: async () => {
        await Promise.all([...children.values()].map((c) => killChild(c, 'SIGTERM')));
        await database.drop();
      },
    };
  } catch (err) {
    await Promise.all([...children.values()].map((c) => killChild(c, 'SIGKILL')));
    await database.drop();
    throw err;
  }
}

function killChild(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
