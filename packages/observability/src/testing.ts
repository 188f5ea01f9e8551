import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_CAPTURE_DIR_VARIABLE } from './capture.js';

/** Shorter values (a TOTP code, a port) would match log lines by chance. */
const MIN_SECRET_LENGTH = 8;

/**
 * Records a password, token or key a test created, so the suite's teardown can prove no log line
 * of any process carried it. Outside the suite's global setup it records nothing.
 */
export function rememberSecret(secret: string): string;
export function rememberSecret(secret: string | null | undefined): string | null | undefined;
export function rememberSecret(secret: string | null | undefined): string | null | undefined {
  const dir = process.env[LOG_CAPTURE_DIR_VARIABLE];
  if (dir && secret && secret.length >= MIN_SECRET_LENGTH)
    appendFileSync(join(dir, `secrets-${process.pid}.jsonl`), `${JSON.stringify(secret)}\n`);
  return secret;
}

export interface Leak {
  /** The first and last characters of the secret, enough to find it in the test that made it. */
  secret: string;
  file: string;
  line: number;
}

/** Every place one of `secrets` appears in the captured logs (file name -> its text). */
export function findLeakedSecrets(logs: Map<string, string>, secrets: Iterable<string>): Leak[] {
  const wanted = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH);
  const leaks: Leak[] = [];
  for (const [file, text] of logs) {
    text.split('\n').forEach((line, index) => {
      if (line === '') return;
      // A secret with quotes or backslashes appears escaped inside a JSON line.
      for (const secret of wanted)
        if (line.includes(secret) || line.includes(JSON.stringify(secret).slice(1, -1)))
          leaks.push({ secret: `${secret.slice(0, 2)}…${secret.slice(-2)}`, file, line: index + 1 });
    });
  }
  return leaks;
}

/**
 * Scans what the run captured for what its tests remembered. Throws naming each leak and keeps the
 * directory for a look; removes it when the logs are clean.
 */
export function finishLogCapture(dir: string): { lines: number; secrets: number } {
  const logs = new Map<string, string>();
  const secrets: string[] = [];
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    if (name.startsWith('secrets-'))
      secrets.push(
        ...text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as string),
      );
    else logs.set(name, text);
  }
  const leaks = findLeakedSecrets(logs, secrets);
  if (leaks.length > 0) {
    const where = leaks.map((l) => `${l.secret} in ${join(dir, l.file)}:${l.line}`).join('\n  ');
    throw new Error(`${leaks.length} log line(s) carry a secret a test used:\n  ${where}`);
  }
  let lines = 0;
  for (const text of logs.values()) lines += text.split('\n').filter(Boolean).length;
  rmSync(dir, { recursive: true, force: true });
  return { lines, secrets: new Set(secrets).size };
}
