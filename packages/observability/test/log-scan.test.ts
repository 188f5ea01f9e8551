import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../src/index.js';
import { findLeakedSecrets, finishLogCapture, rememberSecret } from '../src/testing.js';

const PASSWORD = 'lantern-orchard-velvet-72';

describe('the scan for secrets in captured logs', () => {
  it('finds a remembered secret in any line, raw or JSON-escaped', () => {
    const quoted = 'pa"ss\\word-with-quotes';
    const logs = new Map([
      ['log-1.ndjson', `{"msg":"ok"}\n{"msg":"login","password":"${PASSWORD}"}\n`],
      ['log-2.ndjson', `plain text line\n${JSON.stringify({ note: quoted })}\n`],
    ]);
    const leaks = findLeakedSecrets(logs, [PASSWORD, quoted, 'absent-secret-value']);
    expect(leaks).toEqual([
      { secret: 'la…72', file: 'log-1.ndjson', line: 2 },
      { secret: 'pa…es', file: 'log-2.ndjson', line: 2 },
    ]);
  });

  it('finds nothing in lines the logger redacted', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    createLogger('t', { destination }).info({ password: PASSWORD, form: { new_password: PASSWORD } }, 'x');
    expect(findLeakedSecrets(new Map([['log', lines.join('')]]), [PASSWORD])).toEqual([]);
  });

  it('ignores values too short to tell from chance', () => {
    expect(findLeakedSecrets(new Map([['log', '{"port":"123456"}']]), ['123456'])).toEqual([]);
  });
});

describe('a captured run', () => {
  let dir: string;
  let saved: string | undefined;

  beforeEach(() => {
    saved = process.env.MERIDIAN_LOG_CAPTURE_DIR;
    dir = mkdtempSync(join(tmpdir(), 'log-scan-test-'));
    process.env.MERIDIAN_LOG_CAPTURE_DIR = dir;
  });

  afterEach(() => {
    process.env.MERIDIAN_LOG_CAPTURE_DIR = saved;
  });

  it('fails naming the file and line when a remembered secret was logged, and keeps the directory', () => {
    expect(rememberSecret(PASSWORD)).toBe(PASSWORD);
    writeFileSync(join(dir, 'log-7.ndjson'), `{"msg":"a"}\n{"msg":"b","oops":"${PASSWORD}"}\n`);
    expect(() => finishLogCapture(dir)).toThrow(
      `1 log line(s) carry a secret a test used:\n  la…72 in ${dir}/log-7.ndjson:2`,
    );
    expect(existsSync(dir)).toBe(true);
  });

  it('passes and removes the directory when no remembered secret was logged', () => {
    rememberSecret(PASSWORD);
    rememberSecret(undefined);
    writeFileSync(join(dir, 'log-7.ndjson'), '{"msg":"a","password":"[redacted]"}\n');
    expect(finishLogCapture(dir)).toEqual({ lines: 1, secrets: 1 });
    expect(existsSync(dir)).toBe(false);
  });
});
