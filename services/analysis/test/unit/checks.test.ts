import { describe, expect, it } from '@jest/globals';
import type { Finding } from '@meridian/contracts';
import { evaluateSpf, parseSpfTerms } from '../../src/adapters/scanner/spf.js';
import { activeChecks, isDirectoryListing, type ActiveObservation } from '../../src/domain/checks/active.js';
import { crawlChecks, pageChecks, sriChecks } from '../../src/domain/checks/content.js';
import { dnsChecks, mailChecks } from '../../src/domain/checks/dns.js';
import { exposedFileChecks, securityTxtChecks } from '../../src/domain/checks/files.js';
import { cookieChecks, parseSetCookie } from '../../src/domain/checks/cookies.js';
import { headerChecks, redirectChecks } from '../../src/domain/checks/http.js';
import { tlsChecks } from '../../src/domain/checks/tls.js';
import type { FileProbe, MailObservation, Response, TlsObservation } from '../../src/domain/observations.js';

const ids = (list: Finding[]) => list.map((f) => f.id);
const byId = (list: Finding[], id: string) => list.find((f) => f.id === id);
const now = new Date('2026-06-01T00:00:00Z');

function page(headers: Response['headers'] = {}, body = '', url = 'https://example.com/'): Response {
  return { url, status: 200, headers, body, bytes: Buffer.byteLength(body), truncated: false, ttfbMs: 50 };
}

describe('SPF evaluation', () => {
  const zone = (records: Record<string, string[]>) => async (name: string) => records[name] ?? [];

  it('parses qualifiers, mechanisms and modifiers', () => {
    expect(parseSpfTerms('v=spf1 ip4:1.2.3.4 include:_spf.x.com ~all redirect=y.com')).toEqual([
      { qualifier: '+', name: 'ip4', arg: '1.2.3.4', modifier: false },
      { qualifier: '+', name: 'include', arg: '_spf.x.com', modifier: false },
      { qualifier: '~', name: 'all', arg: null, modifier: false },
      { qualifier: '', name: 'redirect', arg: 'y.com', modifier: true },
    ]);
  });

  it('counts lookups through nested includes', async () => {
    const spf = await evaluateSpf(
      'a.com',
      zone({
        'a.com': ['v=spf1 include:b.com mx a -all'],
        'b.com': ['v=spf1 include:c.com ip4:1.1.1.1 ~all'],
        'c.com': ['v=spf1 exists:%{i}.x.com ptr -all'],
      }),
    );
    expect(spf).toMatchObject({ lookups: 6, all: '-all', errors: [] });
  });

  it('reports more than ten lookups as a permerror', async () => {
    const many = Array.from({ length: 11 }, (_, i) => `include:i${i}.com`).join(' ');
    const records: Record<string, string[]> = { 'a.com': [`v=spf1 ${many} -all`] };
    for (let i = 0; i < 11; i++) records[`i${i}.com`] = ['v=spf1 ip4:10.0.0.1 -all'];
    const spf = await evaluateSpf('a.com', zone(records));
    expect(spf.lookups).toBe(11);
    const found = mailChecks({ spf, dmarc: [], mx: [] });
    expect(byId(found, 'mail.spf.permerror')?.evidence).toContain('more than the limit of 10');
  });

  it('follows redirect= for the closing policy and counts it', async () => {
    const spf = await evaluateSpf(
      'a.com',
      zone({ 'a.com': ['v=spf1 redirect=_spf.a.com'], '_spf.a.com': ['v=spf1 ip4:1.2.3.4 -all'] }),
    );
    expect(spf).toMatchObject({ lookups: 1, all: '-all' });
  });

  it('counts includes of names without SPF as void lookups', async () => {
    const spf = await evaluateSpf(
      'a.com',
      zone({ 'a.com': ['v=spf1 include:x.com include:y.com include:z.com -all'] }),
    );
    expect(spf.void_lookups).toBe(3);
    expect(ids(mailChecks({ spf, dmarc: [], mx: [] }))).toContain('mail.spf.void-lookups');
  });
});

describe('mail and DNS checks', () => {
  const spf = (record: string | null, all: string | null): MailObservation['spf'] => ({
    record,
    records: record ? 1 : 0,
    lookups: 0,
    void_lookups: 0,
    all,
    errors: [],
  });
  it('wants SPF ending in -all or ~all and an enforced DMARC policy', () => {
    expect(
      ids(
        mailChecks({
          spf: spf('v=spf1 -all', '-all'),
          dmarc: ['v=DMARC1; p=reject'],
          mx: [{ exchange: 'mx.a.com', priority: 10 }],
        }),
      ),
    ).toEqual(['mail.spf.ok', 'mail.dmarc.enforced', 'mail.mx.present']);
  });
  it('flags a missing SPF, +all, a missing DMARC and p=none', () => {
    expect(
      byId(mailChecks({ spf: spf(null, null), dmarc: [], mx: [] }), 'mail.spf.missing')?.score_modifier,
    ).toBe(-5);
    expect(
      byId(mailChecks({ spf: spf('v=spf1 +all', '+all'), dmarc: [], mx: [] }), 'mail.spf.permissive')
        ?.severity,
    ).toBe('high');
    expect(ids(mailChecks({ spf: spf(null, null), dmarc: [], mx: [] }))).toContain('mail.dmarc.missing');
    expect(ids(mailChecks({ spf: spf(null, null), dmarc: ['v=DMARC1; p=none'], mx: [] }))).toContain(
      'mail.dmarc.not-enforced',
    );
  });
  it('reports CAA and the DNSSEC state', () => {
    expect(
      ids(
        dnsChecks({
          addresses: [],
          caa: [{ tag: 'issue', value: 'letsencrypt.org', critical: false }],
          dnssec: 'validated',
        }),
      ),
    ).toEqual(['dns.caa.present', 'dns.dnssec.validated']);
    expect(ids(dnsChecks({ addresses: [], caa: [], dnssec: 'unsigned' }))).toEqual([
      'dns.caa.missing',
      'dns.dnssec.unsigned',
    ]);
    expect(ids(dnsChecks({ addresses: [], caa: [], dnssec: 'unknown' }))).toContain('dns.dnssec.unknown');
  });
});

describe('TLS checks', () => {
  const base: TlsObservation = {
    host: 'example.com',
    protocol: 'TLSv1.3',
    versions: { TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': true },
    certificate: {
      subject: 'example.com',
      issuer: 'CA',
      valid_from: '2026-01-01T00:00:00Z',
      valid_to: '2026-12-01T00:00:00Z',
      san: ['DNS:example.com'],
    },
    chain_valid: true,
    chain_error: null,
    hostname_match: true,
    hostname_error: null,
  };
  it('passes a modern configuration', () => {
    expect(tlsChecks(base, now).every((f) => f.passed)).toBe(true);
  });
  it('flags TLS 1.0 and 1.1', () => {
    const found = tlsChecks({ ...base, versions: { ...base.versions, TLSv1: true, 'TLSv1.1': true } }, now);
    expect(ids(found)).toEqual(expect.arrayContaining(['tls.protocol.tls10', 'tls.protocol.tls11']));
  });
  it('judges expiry by days left', () => {
    const ending = (valid_to: string) =>
      ids(tlsChecks({ ...base, certificate: { ...base.certificate!, valid_to } }, now));
    expect(ending('2026-05-01T00:00:00Z')).toContain('tls.certificate.expired');
    expect(ending('2026-06-10T00:00:00Z')).toContain('tls.certificate.expires-soon');
    expect(ending('2026-06-20T00:00:00Z')).toContain('tls.certificate.expiring');
    expect(
      ids(
        tlsChecks(
          { ...base, certificate: { ...base.certificate!, valid_from: '2026-07-01T00:00:00Z' } },
          now,
        ),
      ),
    ).toContain('tls.certificate.not-yet-valid');
  });
  it('flags an untrusted chain and a name mismatch', () => {
    const found = tlsChecks(
      {
        ...base,
        chain_valid: false,
        chain_error: 'SELF_SIGNED',
        hostname_match: false,
        hostname_error: 'mismatch',
      },
      now,
    );
    expect(ids(found)).toEqual(expect.arrayContaining(['tls.chain.untrusted', 'tls.hostname.mismatch']));
  });
});

describe('HTTP, header and cookie checks', () => {
  it('wants http:// to redirect to https:// on the same host first', () => {
    const hop = (url: string, status: number) => ({ ...page({}, '', url), status });
    const secure = [hop('https://example.com/', 200)];
    expect(
      ids(
        redirectChecks(
          {
            plain: [hop('http://example.com/', 301), hop('https://example.com/', 200)],
            plain_error: null,
            secure,
            secure_error: null,
          },
          'example.com',
        ),
      ),
    ).toEqual(['http.redirect.https']);
    expect(
      ids(
        redirectChecks(
          { plain: [hop('http://example.com/', 200)], plain_error: null, secure, secure_error: null },
          'example.com',
        ),
      ),
    ).toEqual(['http.redirect.missing']);
    expect(
      ids(
        redirectChecks(
          {
            plain: [hop('http://example.com/', 301), hop('https://www.example.com/', 200)],
            plain_error: null,
            secure,
            secure_error: null,
          },
          'example.com',
        ),
      ),
    ).toEqual(['http.redirect.other-host']);
    expect(
      ids(
        redirectChecks(
          { plain: null, plain_error: 'refused', secure: null, secure_error: 'refused' },
          'example.com',
        ),
      ),
    ).toEqual(['http.https.unavailable']);
  });

  it('gives a well-configured page bonuses and a bare page penalties', () => {
    const good = headerChecks(
      page({
        'content-security-policy': "default-src 'self'; object-src 'none'; frame-ancestors 'none'",
        'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'strict-origin-when-cross-origin',
        'permissions-policy': 'camera=()',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
      }),
      null,
    );
    expect(good.every((f) => f.passed)).toBe(true);
    expect(good.reduce((s, f) => s + f.score_modifier, 0)).toBe(20);
    const bare = headerChecks(page(), null);
    expect(ids(bare.filter((f) => !f.passed))).toEqual([
      'headers.csp.missing',
      'headers.hsts.missing',
      'headers.xcto.missing',
      'headers.framing.missing',
      'headers.referrer.missing',
      'headers.permissions.missing',
      'headers.coop.missing',
      'headers.corp.missing',
    ]);
    expect(bare.reduce((s, f) => s + f.score_modifier, 0)).toBe(-70);
  });

  it('flags unsafe CSP, short HSTS and a leaky referrer policy', () => {
    const found = headerChecks(
      page({
        'content-security-policy': "script-src 'self' 'unsafe-inline'",
        'strict-transport-security': 'max-age=300',
        'referrer-policy': 'unsafe-url',
        'x-frame-options': 'DENY',
      }),
      null,
    );
    expect(ids(found)).toEqual(
      expect.arrayContaining([
        'headers.csp.unsafe',
        'headers.hsts.short',
        'headers.referrer.unsafe',
        'headers.framing.xfo',
      ]),
    );
  });

  it('parses cookies and flags missing Secure, HttpOnly on a session cookie and SameSite', () => {
    expect(parseSetCookie('sid=1; Path=/; Secure; HttpOnly; SameSite=Lax')).toEqual({
      name: 'sid',
      secure: true,
      httpOnly: true,
      sameSite: 'lax',
    });
    expect(ids(cookieChecks(['sid=1; Secure; HttpOnly; SameSite=Strict'], true))).toEqual(['cookies.ok']);
    expect(ids(cookieChecks(['session=1; Path=/'], true))).toEqual([
      'cookies.secure.missing',
      'cookies.httponly.missing',
      'cookies.samesite.missing',
    ]);
    expect(ids(cookieChecks([], true))).toEqual(['cookies.none']);
  });
});

describe('content checks', () => {
  const html = (head: string, body = '') =>
    `<!doctype html><html lang="en"><head>${head}</head><body>${body}</body></html>`;
  it('checks SRI on third-party scripts only', () => {
    expect(ids(sriChecks(page({}, html('<script src="/app.js"></script>'))))).toEqual(['content.sri.none']);
    expect(ids(sriChecks(page({}, html('<script src="https://cdn.other.net/x.js"></script>'))))).toEqual([
      'content.sri.missing',
    ]);
    expect(ids(sriChecks(page({}, html('<script src="http://cdn.other.net/x.js"></script>'))))).toEqual([
      'content.sri.insecure',
    ]);
    expect(
      ids(
        sriChecks(
          page(
            {},
            html(
              '<script src="https://cdn.other.net/x.js" integrity="sha384-abc" crossorigin="anonymous"></script>',
            ),
          ),
        ),
      ),
    ).toEqual(['content.sri.ok']);
  });
  it('reads title, lang, description and viewport', () => {
    const good = pageChecks(
      page(
        {},
        html(
          '<title>Shop</title><meta name="description" content="Things"><meta name="viewport" content="width=device-width">',
        ),
      ),
    );
    expect(good.every((f) => f.passed)).toBe(true);
    const bare = pageChecks(page({}, '<html><body>hi</body></html>'));
    expect(ids(bare.filter((f) => !f.passed))).toEqual([
      'content.title.missing',
      'content.lang.missing',
      'content.description.missing',
      'content.viewport.missing',
    ]);
  });
  it('flags a heavy page and a slow first byte', () => {
    const heavy = { ...page({}, html('<title>x</title>')), bytes: 3 * 1024 * 1024, ttfbMs: 1500 };
    expect(ids(pageChecks(heavy))).toEqual(
      expect.arrayContaining(['content.size.large', 'content.ttfb.slow']),
    );
  });
  it('finds robots.txt and a sitemap', () => {
    const robots = {
      url: 'https://e.com/robots.txt',
      status: 200,
      content_type: 'text/plain',
      body: 'User-agent: *\nDisallow:',
    };
    const sitemap = {
      url: 'https://e.com/sitemap.xml',
      status: 200,
      content_type: 'application/xml',
      body: '<urlset></urlset>',
    };
    expect(ids(crawlChecks(robots, sitemap))).toEqual(['content.robots.present', 'content.sitemap.present']);
    const soft = { ...robots, body: '<html>home</html>' };
    expect(ids(crawlChecks(soft, { ...sitemap, status: 404 }))).toEqual([
      'content.robots.missing',
      'content.sitemap.missing',
    ]);
  });
});

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
