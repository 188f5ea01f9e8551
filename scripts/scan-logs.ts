/**
 * `tsx scripts/scan-logs.ts <dir>`: scans the log lines a test run captured into <dir> for the
 * secrets its tests remembered; exits 1 naming each leak (the directory stays for a look).
 */
import { finishLogCapture } from '@meridian/observability/testing';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: scan-logs.ts <capture dir>');
  process.exit(2);
}
try {
  const { lines, secrets } = finishLogCapture(dir);
  console.error(`log scan: ${lines} captured lines carry none of the ${secrets} secrets the tests used`);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
