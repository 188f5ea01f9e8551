import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { createLogger } from '../src/index.js';

const API_KEY = 'mk_live_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9o';
const SESSION_TOKEN = 'Qm9vbGVhbi1zZXNzaW9uLXRva2VuLWFib3V0LTI1Ni1iaXRz_x7';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY2NvdW50LTEifQ.c2lnbmF0dXJlLWJ5dGVz';

function logged(write: (logger: ReturnType<typeof createLogger>) => void): Record<string, unknown> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  write(createLogger('test', { destination }));
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('log redaction by field name', () => {
  it('hides passwords, tokens, keys, cookies, codes and bodies at any depth', () => {
    const line = logged((l) =>
      l.info(
        {
          password: 'hunter2-but-longer',
          new_password: 'another-passphrase',
          reset_token: 'tok',
          api_key: API_KEY,
          headers: { authorization: 'whatever', cookie: 'sid=1', 'x-api-key': 'k' },
          form: { deep: { totp: '123456', code: '654321', client_secret: 's' } },
          body: { anything: 'the client sent' },
        },
        'signed in',
      ),
    );
    const text = JSON.stringify(line);
    for (const secret of [
      'hunter2',
      'another-passphrase',
      API_KEY,
      'whatever',
      'sid=1',
      '123456',
      '654321',
      'the client sent',
    ])
      expect(text).not.toContain(secret);
    expect(line.password).toBe('[redacted]');
    expect(line.body).toBe('[redacted]');
    expect((line.headers as Record<string, unknown>).authorization).toBe('[redacted]');
    expect(line.msg).toBe('signed in');
  });

  it('keeps error codes, statuses and ids readable', () => {
    const err = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', errno: -104 });
    const line = logged((l) =>
      l.error(
        { err, status_code: 502, pg: { code: '23505' }, key_id: 'abc123', trace: 'ab'.repeat(16) },
        'upstream failed',
      ),
    );
    const logErr = line.err as Record<string, unknown>;
    expect(logErr.code).toBe('ECONNRESET');
    expect(logErr.errno).toBe(-104);
    expect(logErr.message).toBe('socket hang up');
    expect(logErr.type).toBe('Error');
    expect(String(logErr.stack)).toContain('socket hang up');
    expect(line.status_code).toBe(502);
    expect((line.pg as Record<string, unknown>).code).toBe('23505');
    expect(line.key_id).toBe('abc123');
    expect(line.trace).toBe('ab'.repeat(16));
  });

  it('drops the raw body an error carries (body-parser errors hold the whole request body)', () => {
    const err = Object.assign(new Error('too many parameters'), {
      status: 413,
      type: 'parameters.too.many',
      body: 'token=abc&password=correct-horse-battery',
    });
    const line = logged((l) => l.error({ err }, 'request failed'));
    expect(JSON.stringify(line)).not.toContain('correct-horse-battery');
    expect((line.err as Record<string, unknown>).type).toBe('Error');
    expect((line.err as Record<string, unknown>).status).toBe(413);
  });
});

describe('log redaction by pattern', () => {
  it('hides API keys, bearer tokens, JWTs and tokens in URLs wherever they appear', () => {
    const line = logged((l) =>
      l.warn(
        {
          url: `/auth/verify-email?token=${SESSION_TOKEN}&lang=en`,
          note: `got header Bearer ${SESSION_TOKEN}`,
        },
        `key ${API_KEY} refused; jwt ${JWT}; link https://x.example/s/${SESSION_TOKEN}`,
      ),
    );
    const text = JSON.stringify(line);
    for (const secret of [API_KEY, SESSION_TOKEN, JWT]) expect(text).not.toContain(secret);
    expect(line.url).toBe('/auth/verify-email?token=[redacted]&lang=en');
    expect(line.note).toBe('got header Bearer [redacted]');
    expect(line.msg).toBe('key [redacted] refused; jwt [redacted]; link https://x.example/s/[redacted]');
  });

  it('redacts the message pino takes from a logged error', () => {
    const line = logged((l) => l.error(new Error(`no account for ${API_KEY}`)));
    expect(JSON.stringify(line)).not.toContain(API_KEY);
    expect(line.msg).toBe('no account for [redacted]');
  });

  it('redacts the bindings of a child logger', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const child = createLogger('test', { destination }).child({ token: SESSION_TOKEN, run: 'r1' });
    child.child({ secret: 'grandchild-secret', step: 2 }).info('started');
    expect(lines[0]).not.toContain(SESSION_TOKEN);
    expect(lines[0]).not.toContain('grandchild-secret');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      token: '[redacted]',
      run: 'r1',
      secret: '[redacted]',
      step: 2,
    });
  });

  it('keeps trace ids, uuids and hashes, which are identifiers rather than secrets', () => {
    const uuid = '7f9c2ba4-e88f-4f2a-9c1d-0b6f3e2a1c5d';
    const sha = 'a'.repeat(24) + '0123456789abcdef'.repeat(2) + 'b'.repeat(24);
    const line = logged((l) => l.info({ request: uuid, hash: sha }, `trace ${'cd'.repeat(16)}`));
    expect(line.request).toBe(uuid);
    expect(line.hash).toBe(sha);
    expect(line.msg).toBe(`trace ${'cd'.repeat(16)}`);
  });
});
