/**
 * Runs every bench file of this folder (each exports `run()`), one after the other: `pnpm bench [name...]`.
 * Peers the benches start as processes of their own live in bench/peers/.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'support.ts'].includes(f))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

for (const file of files) {
  const mod = (await import(pathToFileURL(`${here}/${file}`).href)) as { run?: () => Promise<void> };
  if (mod.run) await mod.run();
}
process.exit(0);
