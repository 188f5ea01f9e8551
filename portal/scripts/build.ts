/**
 * Builds the pages into dist/public/ (tsc puts the server in dist/) and prints the script the first page loads, raw and gzip, against
 * the 150 KB compressed budget (the run fails beyond it).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, scriptSize } from '../src/bundle.js';

const BUDGET = 150 * 1024;
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'public');
const assets = await bundle();
await rm(dist, { recursive: true, force: true });
await mkdir(join(dist, 'assets'), { recursive: true });
for (const [name, asset] of assets)
  await writeFile(join(dist, name === '/' ? 'index.html' : name), asset.body);
const size = scriptSize(assets);
console.log(
  `portal: first page script ${(size.raw / 1024).toFixed(1)} KB, ${(size.gzip / 1024).toFixed(1)} KB gzip (budget ${BUDGET / 1024} KB gzip) -> ${dist}`,
);
if (size.gzip > BUDGET) process.exit(1);
