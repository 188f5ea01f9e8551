/**
 * Runs the benchmarks that live beside each service and the gateway (`services/<name>/bench/*.ts`,
 * `gateway/bench/*.ts`; each exports `run()`), one after the other: `pnpm bench [name...]`, where a
 * name picks every bench whose label (`data-rollup`, `gateway-proxy`, ...) contains it.
 * `bench/memory.ts` (label `memory`) measures every process at idle; `bench/mixed.ts` (label `mixed`)
 * drives a mixed load (data reads by key, portal reads, pay per call) on the split system;
 * `bench/data-routes.ts` (label `data-routes`) each data route straight and through the gateway.
 * Peers a bench starts as processes of their own live in its bench/peers/.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './support.js';

/** Folders holding benches, with the name each one's labels start with. */
function benchFolders(): { owner: string; dir: string }[] {
  const services = readdirSync(join(ROOT, 'services')).map((name) => ({
    owner: name,
    dir: join(ROOT, 'services', name, 'bench'),
  }));
  return [...services, { owner: 'gateway', dir: join(ROOT, 'gateway', 'bench') }].filter((f) =>
    existsSync(f.dir),
  );
}

const only = process.argv.slice(2);
const benches = benchFolders()
  .flatMap(({ owner, dir }) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'support.ts')
      .map((f) => ({ label: `${owner}-${f.slice(0, -'.ts'.length)}`, file: join(dir, f) })),
  )
  // The system-wide one: every process's resident memory at idle (bench/memory.ts).
  .concat({ label: 'memory', file: join(ROOT, 'bench', 'memory.ts') })
  // The system under a mixed load: throughput, latency per route, memory per process (bench/mixed.ts).
  .concat({ label: 'mixed', file: join(ROOT, 'bench', 'mixed.ts') })
  // Each data route straight and through the gateway, their ratio (bench/data-routes.ts).
  .concat({ label: 'data-routes', file: join(ROOT, 'bench', 'data-routes.ts') })
  .filter((b) => only.length === 0 || only.some((o) => b.label.includes(o)))
  .sort((a, b) => a.label.localeCompare(b.label));

for (const bench of benches) {
  const mod = (await import(pathToFileURL(bench.file).href)) as { run?: () => Promise<void> };
  if (mod.run) await mod.run();
}
process.exit(0);
