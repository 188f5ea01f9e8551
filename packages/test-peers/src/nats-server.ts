import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service-process.js';

/** The nats-server binary: `NATS_SERVER_BIN`, else Debian's, else the one on the PATH. */
const NATS_SERVER_BIN =
  process.env.NATS_SERVER_BIN ??
  (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');

export interface NatsServer {
  /** `nats://127.0.0.1:<port>`: the same across restarts. */
  url: string;
  port: number;
  /** JetStream's store directory: the same across restarts, so streams and consumers survive them. */
  storeDir: string;
  /** Stops the server (SIGTERM: it shuts down cleanly; SIGKILL: a crash) and resolves once it exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its store. */
  close(): Promise<void>;
}

/**
 * A private nats-server with JetStream on a free loopback port and a store in a temporary
 * directory, for tests that stop and restart NATS (the machine's server on 4222 is shared by every
 * test running at the time, so it is never restarted).
 */
export async function startNatsServer(): Promise<NatsServer> {
  const port = await freePort();
  const storeDir = await mkdtemp(join(tmpdir(), 'meridian-nats-'));
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    output = '';
    const proc = spawn(NATS_SERVER_BIN, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
      if (process.env.E2E_VERBOSE) process.stderr.write(chunk);
    });
    child = proc;
    const until = Date.now() + 20_000;
    while (Date.now() < until) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`nats-server exited with ${proc.exitCode ?? proc.signalCode}:\n${output}`);
      // The server is up once it greets a connection with INFO, and JetStream is up once it says so.
      if (output.includes('Server is ready') && (await greets(port))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    proc.kill('SIGKILL');
    throw new Error(`nats-server on ${port} was not ready within 20 s:\n${output}`);
  };

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      proc.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      proc.kill(signal);
    });
  };

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    stop,
    start,
    close: async () => {
      await stop('SIGKILL');
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

/** Whether something on the port answers a NATS greeting (`INFO {...}`). */
function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (chunk: Buffer) => done(chunk.toString('utf8').startsWith('INFO')));
  });
}
