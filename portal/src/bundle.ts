import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { build as BuildFn } from 'esbuild';

/** One file the portal serves: its bytes, content type and whether its name carries its hash. */
export interface Asset {
  body: Buffer;
  type: string;
  immutable: boolean;
}

export type Assets = ReadonlyMap<string, Asset>;

const PAGES = fileURLToPath(new URL('./pages/', import.meta.url));
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';

/**
 * Bundles the single-page app with esbuild (`src/pages/main.ts`, `src/pages/style.css`) into
 * content-hashed files under `/assets/`, and writes `index.html` naming them: external script
 * and style files only, so the page's CSP needs no 'unsafe-inline'. esbuild's service (a process
 * of its own, ~12 MB) is stopped once no bundle is being built: the portal never builds again.
 */
export async function bundle(): Promise<Assets> {
  const esbuild = await import('esbuild');
  building += 1;
  try {
    return await bundleWith(esbuild.build);
  } finally {
    building -= 1;
    if (building === 0) await esbuild.stop();
  }
}

/** Bundles under way in this process: they share esbuild's one service. */
let building = 0;

async function bundleWith(build: typeof BuildFn): Promise<Assets> {
  const result = await build({
    entryPoints: { app: join(PAGES, 'main.ts'), style: join(PAGES, 'style.css') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
    entryNames: '[name]-[hash]',
    outdir: '/assets',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf('/assets/'));
    assets.set(name, { body: Buffer.from(file.contents), type: typeOf(name), immutable: true });
  }
  const names = [...assets.keys()];
  const script = names.find((n) => n.endsWith('.js'))!;
  const style = names.find((n) => n.endsWith('.css'))!;
  const html = (await readFile(join(PAGES, 'index.html'), 'utf8'))
    .replace('%SCRIPT%', script)
    .replace('%STYLE%', style);
  assets.set('/', { body: Buffer.from(html), type: typeOf('.html'), immutable: false });
  return assets;
}

/** Reads files a previous build wrote (`scripts/build.ts`). */
export async function readBuilt(dir: string): Promise<Assets> {
  const assets = new Map<string, Asset>();
  for (const name of await readdir(join(dir, 'assets'))) {
    assets.set(`/assets/${name}`, {
      body: await readFile(join(dir, 'assets', name)),
      type: typeOf(name),
      immutable: true,
    });
  }
  assets.set('/', { body: await readFile(join(dir, 'index.html')), type: typeOf('.html'), immutable: false });
  return assets;
}

/** Bytes of script the first page loads, raw and gzip-compressed (the budget is 150 KB compressed). */
export function scriptSize(assets: Assets): { raw: number; gzip: number; etag: string } {
  let raw = 0;
  let gzip = 0;
  const hash = createHash('sha256');
  for (const [name, asset] of assets) {
    if (!name.endsWith('.js')) continue;
    raw += asset.body.length;
    gzip += gzipSync(asset.body).length;
    hash.update(asset.body);
  }
  return { raw, gzip, etag: hash.digest('hex').slice(0, 16) };
}
