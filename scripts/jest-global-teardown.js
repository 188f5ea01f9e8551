import { execFileSync } from 'node:child_process';

/**
 * Fails the run when a captured log line carries a password, token or key a test remembered.
 * The scan is TypeScript run by tsx, as jest loads this file without the `source` condition.
 */
export default function globalTeardown() {
  const dir = process.env.MERIDIAN_LOG_CAPTURE_DIR;
  if (!dir) throw new Error('MERIDIAN_LOG_CAPTURE_DIR unset: the global setup did not run');
  execFileSync(process.execPath, ['--conditions=source', '--import', 'tsx', 'scripts/scan-logs.ts', dir], {
    stdio: 'inherit',
  });
}
