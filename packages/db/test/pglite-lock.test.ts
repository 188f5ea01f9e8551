import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { openPGlite } from '../src/pglite.js';

const PGLITE = fileURLToPath(new URL('../src/pglite.ts', import.meta.url));
const dirs: string[] = [];

/** Another process that opens the embedded database in `dir`, writes, and waits to be killed. */
async function holder(dir: string): Promise<ChildProcess> {
  const code = `
    const { openPGlite } = await import(${JSON.stringify(PGLITE)});
    const db = await openPGlite(${JSON.stringify(dir)});
    await db.exec('create table if not exists t (n int); insert into t values (1);');
    process.stdout.write('open\\n');
    setInterval(() => db.exec('insert into t values (2)'), 20);`;
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', code],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('open') && resolve());
    child.once('exit', (c) => reject(new Error(`the holder exited with ${c}`)));
  });
  return child;
}

describe('the embedded database directory', () => {
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('refuses a second process at once, naming the directory and the holder, and reopens after the holder is killed mid-write', async () => {
    const base = mkdtempSync(join(tmpdir(), 'meridian-pglite-'));
    dirs.push(base);
    const dir = join(base, 'pglite');
    const child = await holder(dir);
    await expect(openPGlite(dir)).rejects.toThrow(
      new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by process ${child.pid}`),
    );
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const db = await openPGlite(dir);
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from t');
    expect(rows[0]!.n).toBeGreaterThan(0);
    await db.close();
    // Closed: the directory is free for the next process.
    await (await openPGlite(dir)).close();
  }, 60_000);
});
