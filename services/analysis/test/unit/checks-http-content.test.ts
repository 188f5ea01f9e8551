// The HTTP, header, cookie and page-content checks as pure rules over fetched responses.
import { describe, expect, it } from '@jest/globals';
import { crawlChecks, pageChecks, sriChecks } from '../../src/domain/checks/content.js';
import { cookieChecks, parseSetCookie } from '../../src/domain/checks/cookies.js';
import { headerChecks, redirectChecks } from '../../src/domain/checks/http.js';
import { ids, page } from './support/findings.js';

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
      path: '/',
      domain: null,
    });
    expect(ids(cookieChecks(['sid=1; Secure; HttpOnly; SameSite=Strict'], true))).toEqual(['cookies.ok']);
    expect(ids(cookieChecks(['session=1; Path=/'], true))).toEqual([
      'cookies.secure.session-missing',
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
