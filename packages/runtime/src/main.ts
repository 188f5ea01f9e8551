import { fileURLToPath } from 'node:url';
import { realpathSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** True when this module is the file node was asked to run (not imported by the all-in-one start). */
export function isEntrypoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

/** Runs a start function as a process: stops cleanly on SIGINT/SIGTERM, exits non-zero on a failed start. */
export async function runMain(start: () => Promise<{ close(): Promise<void> }>): Promise<void> {
  let running: { close(): Promise<void> };
  try {
    running = await start();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
  let stopping = false;
  // A signal handler's promise has no one to answer to: a failed close is said and exits non-zero.
  const stop = () => {
    if (stopping) return;
    stopping = true;
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err instanceof Error ? err.message : err);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  collectGarbage();
}

let fullGc: ((options: object) => void) | undefined;

/**
 * One full garbage collection, now. A start (module graph, migrations, a first load) leaves tens
 * of MB of garbage in the old generation, and V8 collects it only when the heap grows further,
 * which an idle process never does: the process then idled with its start-up heap resident. Called
 * once a process is up (runMain, the all-in-one start) and after a service's first load; never on
 * a request's path. No `--expose-gc` needed: the flag is set here and `gc` taken from a context
 * created after it.
 *
 * The "last-resort" flavour (V8's CollectAllAvailableGarbage: GCs until nothing more is freed,
 * reducing memory) also hands back the heap pages the collection emptied. After a regular one V8
 * kept them pooled for reuse, resident: the all-in-one with the replay idled at 346-360 MB RSS in
 * three runs of four (some 50 MB of emptied pages), 301-318 MB in four of four with it (README,
 * "Memory").
 */
export function collectGarbage(): void {
  if (!fullGc) {
    setFlagsFromString('--expose-gc');
    fullGc = runInNewContext('gc') as (options: object) => void;
  }
  fullGc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
