// The exposed-file, security.txt and active checks as pure rules over probes: what counts as an
// exposed file, what its evidence may say, and what the active tests flag.
import { describe, expect, it } from '@jest/globals';
import { activeChecks, isDirectoryListing, type ActiveObservation } from '../../src/domain/checks/active.js';
import { exposedFileChecks, securityTxtChecks } from '../../src/domain/checks/files.js';
import type { FileProbe } from '../../src/domain/observations.js';
import { ids, now } from './support/findings.js';

describe('exposed files and security.txt', () => {
  const probe = (path: string, status: number, head: string): FileProbe => ({
    path,
    status,
    bytes: head.length,
    head,
    content_type: 'text/plain',
  });
  const at = (origin: string, baseline: FileProbe, probes: FileProbe[]) => ({ origin, baseline, probes });
  it('reports a real .git/config and .env', () => {
    const found = exposedFileChecks([
      at('https://e.com', probe('(random)', 404, 'Not Found'), [
        probe('/.git/config', 200, '[core]\n\trepositoryformatversion = 0\n'),
        probe('/.env', 200, 'DB_PASSWORD=hunter2\n'),
        probe('/db.sql', 404, 'Not Found'),
      ]),
    ]);
    expect(ids(found)).toEqual(['files.exposed.git-config', 'files.exposed.env']);
    expect(found[0]!.severity).toBe('critical');
  });
  it('reports a file exposed over http although https hides it, naming the URL that served it', () => {
    const notFound = probe('(random)', 404, 'Not Found');
    const found = exposedFileChecks([
      at('http://e.com', notFound, [probe('/.env', 200, 'APP_KEY=abc\n')]),
      at('https://e.com', notFound, [probe('/.env', 404, 'Not Found')]),
    ]);
    expect(ids(found)).toEqual(['files.exposed.env']);
    expect(found[0]!.evidence).toMatch(/^http:\/\/e\.com\/\.env: HTTP 200/);
    expect(found[0]!.evidence).not.toContain('https://');
  });
  it('names the keys of an exposed file and the lengths of their values, never a value', () => {
    const notFound = probe('(random)', 404, 'Not Found');
    const secrets = ['hunter2', 'base64:c2VjcmV0', 'ghp_0123456789abcdef', 'alice', 's3cr3t-row'];
    const found = exposedFileChecks([
      at('https://e.com', notFound, [
        probe('/.env', 200, 'APP_KEY=base64:c2VjcmV0\nexport DB_PASSWORD="hunter2"\n'),
        probe(
          '/.git/config',
          200,
          '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://alice:ghp_0123456789abcdef@github.com/e/e.git\n',
        ),
        probe(
          '/dump.sql',
          200,
          "CREATE TABLE users (name text);\nINSERT INTO users VALUES ('s3cr3t-row');\n",
        ),
      ]),
    ]);
    const evidence = Object.fromEntries(found.map((f) => [f.id, f.evidence]));
    expect(evidence['files.exposed.env']).toContain('APP_KEY (15 characters), DB_PASSWORD (7 characters)');
    expect(evidence['files.exposed.git-config']).toContain(
      'core.bare (5 characters), remote.origin.url (53 characters, with credentials in it)',
    );
    expect(evidence['files.exposed.dump-sql']).toContain('SQL dump of tables: users');
    for (const secret of secrets) expect(JSON.stringify(found)).not.toContain(secret);
  });
  it('cuts the user and password out of a .git/config section name, and never prints a credential helper or password', () => {
    const secrets = ['ghs_urlToken456', 'credPass789', 'credHelperPw000', 'x-access-token', 'ci:'];
    const config = [
      '[core]',
      '\tbare = false',
      '[url "https://x-access-token:ghs_urlToken456@github.com/"]',
      '\tinsteadOf = https://github.com/',
      '[credential "https://ci:credPass789@git.example"]',
      '\thelper = store --file /tmp/creds',
      '[credential]',
      '\tpassword = credHelperPw000',
      '[remote "origin"]',
      '\turl = x-access-token:ghs_urlToken456@github.com:e/e.git',
    ].join('\n');
    const found = exposedFileChecks([
      at('https://e.com', probe('(random)', 404, 'Not Found'), [probe('/.git/config', 200, config)]),
    ]);
    const evidence = found[0]!.evidence;
    expect(evidence).toContain(
      'url.https://github.com/.insteadOf (19 characters, credentials cut out of its section name)',
    );
    expect(evidence).toContain('credential.https://git.example.helper (23 characters, credentials cut out');
    expect(evidence).toContain('credential.password (15 characters)');
    expect(evidence).toContain('remote.origin.url (49 characters, with credentials in it)');
    for (const secret of secrets) expect(JSON.stringify(found)).not.toContain(secret);
  });
  it('reports nothing on a site that answers every path with its home page (soft 404)', () => {
    const home = '<html><body>[core] welcome DB_PASSWORD=x</body></html>';
    const found = exposedFileChecks([
      at(
        'https://e.com',
        probe('(random)', 200, home),
        ['/.git/config', '/.env', '/backup.zip', '/db.sql'].map((p) => probe(p, 200, home)),
      ),
    ]);
    expect(ids(found)).toEqual(['files.exposed.none']);
  });
  it('needs the file signature, not just a 200', () => {
    const found = exposedFileChecks([
      at('https://e.com', probe('(random)', 404, 'nope'), [
        probe('/.git/config', 200, 'something else entirely, longer than the baseline'),
      ]),
    ]);
    expect(ids(found)).toEqual(['files.exposed.none']);
  });
  it('validates security.txt per RFC 9116', () => {
    const txt = (body: string, status = 200) => ({
      url: 'https://e.com/.well-known/security.txt',
      status,
      content_type: 'text/plain',
      body,
    });
    expect(
      ids(securityTxtChecks(txt('Contact: mailto:s@e.com\nExpires: 2027-01-01T00:00:00Z\n'), now)),
    ).toEqual(['files.security-txt.ok']);
    expect(
      securityTxtChecks(txt('Contact: mailto:s@e.com\nExpires: 2026-01-01T00:00:00Z\n'), now)[0]!.evidence,
    ).toContain('expired');
    expect(securityTxtChecks(txt('Expires: 2027-01-01T00:00:00Z\n'), now)[0]!.evidence).toContain(
      'no Contact',
    );
    expect(ids(securityTxtChecks(txt('', 404), now))).toEqual(['files.security-txt.missing']);
    expect(ids(securityTxtChecks(null, now))).toEqual(['files.security-txt.missing']);
  });
});

describe('active checks', () => {
  const none: ActiveObservation = {
    cors: null,
    redirects: [],
    listings: [],
    methods: null,
    reflections: [],
    skipped: [],
  };
  it('flags an origin reflected with credentials as critical', () => {
    const found = activeChecks({
      ...none,
      cors: { allow_origin: 'https://evil.example', allow_credentials: true },
    });
    expect(found[0]).toMatchObject({
      id: 'active.cors.reflected-credentials',
      severity: 'critical',
      score_modifier: -50,
    });
    expect(
      ids(
        activeChecks({ ...none, cors: { allow_origin: 'https://evil.example', allow_credentials: false } }),
      ),
    ).toEqual(['active.cors.reflected']);
    expect(ids(activeChecks({ ...none, cors: { allow_origin: '', allow_credentials: false } }))).toEqual([
      'active.cors.ok',
    ]);
  });
  it('flags open redirects to the external host only', () => {
    expect(
      ids(
        activeChecks({
          ...none,
          redirects: [{ url: 'https://e.com/?next=x', status: 302, location: 'https://evil.example/' }],
        }),
      ),
    ).toEqual(['active.open-redirect']);
    expect(
      ids(
        activeChecks({
          ...none,
          redirects: [{ url: 'https://e.com/?next=x', status: 302, location: '/home' }],
        }),
      ),
    ).toEqual(['active.open-redirect.none']);
  });
  it('recognises directory listings, dangerous methods and reflected input', () => {
    expect(isDirectoryListing('<html><head><title>Index of /uploads</title>')).toBe(true);
    expect(isDirectoryListing('<h1>Directory listing for /files/</h1>')).toBe(true);
    expect(ids(activeChecks({ ...none, listings: [{ url: 'u', status: 200, listing: true }] }))).toEqual([
      'active.directory-listing',
    ]);
    expect(
      ids(
        activeChecks({ ...none, methods: { allow: 'GET, PUT, TRACE', trace_echo: true, put_status: 201 } }),
      ),
    ).toEqual(['active.methods.dangerous']);
    expect(
      ids(activeChecks({ ...none, methods: { allow: 'GET, HEAD', trace_echo: false, put_status: 405 } })),
    ).toEqual(['active.methods.ok']);
    expect(ids(activeChecks({ ...none, reflections: [{ url: 'u', reflected: true }] }))).toEqual([
      'active.reflected-input',
    ]);
  });
});
