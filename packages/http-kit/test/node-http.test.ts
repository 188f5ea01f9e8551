import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A fresh process (jest's own has loaded everything): serves one request, prints what node loaded. */
const SERVE_ONE = `
import { nodeHttp, startServer } from '@meridian/http-kit';
const running = await startServer((_req, res) => res.end('ok'), { port: 0 });
const body = await new Promise((done) =>
  nodeHttp.get(running.url, (res) => { let text = ''; res.on('data', (c) => (text += c)).on('end', () => done(text)); }),
);
await running.close();
console.log(JSON.stringify({ body, loaded: process.moduleLoadList }));
`;

describe('a server of the kit', () => {
  it('serves without loading node’s own undici or http2 (an ES import of node:http would)', () => {
    const run = spawnSync(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--input-type=module', '--eval', SERVE_ONE],
      { cwd: PACKAGE_DIR, encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.stderr).toBe('');
    const { body, loaded } = JSON.parse(run.stdout) as { body: string; loaded: string[] };
    expect(body).toBe('ok');
    expect(loaded).toContain('NativeModule http');
    expect(loaded.filter((name) => /undici|http2/.test(name))).toEqual([]);
  });
});
