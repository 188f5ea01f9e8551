import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Set by the test suite's global setup: every log line of every process (test workers and the
 * services tests-e2e spawns) is copied into this directory, which the global teardown scans for
 * the secrets the tests used. Unset outside the suite, where lines only go to their stream.
 */
export const LOG_CAPTURE_DIR_VARIABLE = 'MERIDIAN_LOG_CAPTURE_DIR';

let captureFd: number | undefined;

function captureFile(): number | undefined {
  const dir = process.env[LOG_CAPTURE_DIR_VARIABLE];
  if (!dir) return undefined;
  if (captureFd === undefined) {
    captureFd = openSync(join(dir, `log-${process.pid}.ndjson`), 'a');
    process.once('exit', () => closeSync(captureFd!));
  }
  return captureFd;
}

/** pino's streamWrite hook: copies the finished line to the capture file, if any, unchanged. */
export function captureLine(line: string): string {
  const fd = captureFile();
  if (fd !== undefined) writeSync(fd, line);
  return line;
}
