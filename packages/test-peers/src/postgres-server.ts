import { execFile } from 'node:child_process';
import { chown, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './service-process.js';

const run = promisify(execFile);

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the same across restarts (trust auth). */
  url: string;
  port: number;
  /**
   * Stops the server: `fast` ends every session and shuts down cleanly, `immediate` is a crash
   * (the next start runs crash recovery from the WAL).
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (immediate) and removes its files. */
  close(): Promise<void>;
}

/**
 * A private PostgreSQL cluster on a free loopback port, in a temporary directory, for tests that
 * stop and restart the database (the machine's server on 5432 is shared by every test running at
 * the time, so it is never restarted). Uses the newest `/usr/lib/postgresql/<n>/bin` (or
 * `PG_BIN_DIR`). PostgreSQL refuses to run as root, so as root its commands run as the `postgres`
 * OS user (`runuser`) and the directory is handed to that user.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = await postgresBinDir();
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'meridian-pg-'));
  const dataDir = join(dir, 'data');
  const socketDir = join(dir, 'sock');
  await mkdir(socketDir);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    await chown(dir, uid, gid);
    await chown(socketDir, uid, gid);
  }
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { cwd: dir })
      : run(join(bin, tool), args, { cwd: dir });

  await pg('initdb', [
    '-D',
    dataDir,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  // fsync off: the stops this server is for are process crashes, which the OS's page cache survives.
  const options = [
    '-c listen_addresses=127.0.0.1',
    `-p ${port}`,
    `-k ${socketDir}`,
    '-c fsync=off',
    '-c max_connections=200',
  ].join(' ');
  const logFile = join(dir, 'server.log');
  const start = async () => {
    try {
      await pg('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', options]);
    } catch (err) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`postgres on ${port} did not start:\n${log.slice(-4000)}`, { cause: err });
    }
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    if (!existsSync(join(dataDir, 'postmaster.pid'))) return;
    await pg('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '60']);
  };

  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    close: async () => {
      await stop('immediate').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresBinDir(): Promise<string> {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = (await readdir(root).catch(() => [] as string[]))
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no PostgreSQL under ${root}/<version>/bin; set PG_BIN_DIR`);
  return join(root, versions[0]!, 'bin');
}
