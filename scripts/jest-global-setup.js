import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every log line of this run, from every worker and every service tests-e2e spawns, is copied
 * into one directory (see packages/observability/src/capture.ts) for the teardown's scan.
 */
export default function globalSetup() {
  process.env.MERIDIAN_LOG_CAPTURE_DIR = mkdtempSync(join(tmpdir(), 'meridian-logs-'));
}
