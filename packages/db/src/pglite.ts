import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { parseInt8 } from './database.js';

/**
 * Postgres' own memory lives in PGlite's WebAssembly memory, which never shrinks. Its default
 * 128 MB `shared_buffers` is touched at start, so it stayed resident however small the data: the
 * embedded database of one all-in-one process caches 16 MB of pages (`SHOW shared_buffers`), and
 * the pages past it come from the files under `dataDir` (the operating system's cache).
 */
const SHARED_BUFFERS = '16MB';

/**
 * PGlite's module, loaded by the first process that opens one: a service on PostgreSQL (every
 * split one) never loads its ~1 MB of JavaScript.
 */
async function loadPGlite(): Promise<{ PGlite: typeof PGlite; options: PGliteOptions }> {
  const { PGlite, types } = await import('@electric-sql/pglite');
  return {
    PGlite,
    options: {
      parsers: { [types.INT8]: parseInt8 },
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
    },
  };
}

/**
 * PGlite's Postgres is one 9 MB WebAssembly module. V8 compiles it with its baseline compiler
 * (Liftoff) and recompiles the functions that run often with its optimising one (TurboFan); that
 * tier-up took ~550 MB of native memory while it ran (a bare PGlite peaked at ~720 MB against
 * ~160 MB without it), memory the allocator kept, so the process idled higher for it. Without it
 * PGlite's queries ran no slower on this machine (the tier-up's compile jobs compete with them for
 * the cores): see docs/memory.md. Set before the first PGlite compiles its module, and only
 * in a process that opens one (the split services, on PostgreSQL, never do).
 */
const WASM_BASELINE_FLAGS = ['--no-wasm-tier-up', '--no-wasm-dynamic-tiering'];
let tierUpOff = false;
function keepWasmBaseline(): void {
  if (tierUpOff) return;
  for (const flag of WASM_BASELINE_FLAGS) setFlagsFromString(flag);
  tierUpOff = true;
}

/**
 * The embedded database of the all-in-one mode: real Postgres compiled to WebAssembly, persisted
 * under `dataDir` so that a second start reuses what the first stored. Omit `dataDir` for memory.
 *
 * One process at a time: two writers on one directory corrupt it beyond repair, so the directory
 * is held by a lock file naming the holder's pid (`<dataDir>.lock`), taken before opening and
 * given back on close; a lock whose process is gone is taken over.
 */
export async function openPGlite(dataDir?: string): Promise<PGlite> {
  keepWasmBaseline();
  const { PGlite, options } = await loadPGlite();
  if (!dataDir) return ready(new PGlite(undefined, options));
  mkdirSync(dataDir, { recursive: true });
  const release = holdDirectory(dataDir);
  try {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await createCluster(dataDir, options);
    const pglite = await ready(new PGlite(dataDir, options));
    const close = pglite.close.bind(pglite);
    pglite.close = async () => {
      try {
        await close();
      } finally {
        release();
      }
    };
    return pglite;
  } catch (err) {
    release();
    throw new Error(
      `The embedded database in ${dataDir} could not be opened (${err instanceof Error ? err.message : String(err)}). ` +
        `If a run was killed while writing, move ${dataDir} aside and start again (it is created afresh), ` +
        `or point DATABASE_URL at a PostgreSQL server.`,
      { cause: err },
    );
  }
}

/**
 * Creates the cluster in `dataDir` (initdb) in a child process that then ends: an instance that ran
 * initdb keeps initdb's WebAssembly memory for as long as it lives, and a closed one holds it until
 * a full GC, so the process would idle some 200-450 MB higher than one that opens an existing
 * directory. In a worker thread (as before) the process still peaked at ~860 MB while initdb ran
 * and kept part of it after the worker ended (the allocator's); a process of its own gives all of
 * it back when it exits.
 */
async function createCluster(dataDir: string, options: PGliteOptions): Promise<void> {
  const pglite = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const code = `const { PGlite } = await import(${JSON.stringify(pglite.replace(/\.cjs$/, '.js'))});
    const db = new PGlite(${JSON.stringify(dataDir)}, { startParams: ${JSON.stringify(options.startParams)} });
    await db.waitReady;
    await db.close();`;
  const child = spawn(process.execPath, [...WASM_BASELINE_FLAGS, '--input-type=module', '-e', code], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-2000)));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`initdb ended with ${code ?? signal}: ${stderr.trim()}`)),
    );
  });
}

async function ready(pglite: PGlite): Promise<PGlite> {
  await pglite.waitReady;
  return pglite;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes `<dir>.lock` for this process, or throws naming the live process that holds it. */
function holdDirectory(dir: string): () => void {
  const lock = join(dirname(dir), `${dir.split(/[\\/]/).pop()}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(lock, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder))
        throw new Error(
          `The embedded database in ${dir} is in use by process ${holder} (${lock}); stop that process, ` +
            'or give this one another DATA_DIR or a DATABASE_URL.',
          { cause: err },
        );
      rmSync(lock, { force: true });
    }
  }
  throw new Error(`The embedded database in ${dir} could not be locked (${lock}).`);
}
