import { describe, expect, it } from '@jest/globals';
import type { Finding } from '@meridian/contracts';
import { bannerChecks } from '../../src/domain/checks/banners.js';
import { cookieChecks } from '../../src/domain/checks/cookies.js';
import { corsChecks, PREFLIGHT_ORIGIN } from '../../src/domain/checks/cors.js';
import { cspChecks } from '../../src/domain/checks/csp.js';
import { framingChecks } from '../../src/domain/checks/framing.js';
import { hstsChecks } from '../../src/domain/checks/hsts.js';
import { referrerChecks } from '../../src/domain/checks/referrer.js';
import type { Response } from '../../src/domain/observations.js';

// Expected values follow the MDN HTTP Observatory's published rules (its analyzer tests and score
// table, @mdn/mdn-http-observatory 1.4.8), or the departure docs/scoring.md documents.

function page(headers: Response['headers'] = {}, body = '', url = 'https://example.com/'): Response {
  return { url, status: 200, headers, body, bytes: Buffer.byteLength(body), truncated: false, ttfbMs: 50 };
}
const only = (found: Finding[]) => {
  expect(found).toHaveLength(1);
  return { id: found[0]!.id, points: found[0]!.score_modifier };
};
const csp = (policy: string) => only(cspChecks(page({ 'content-security-policy': policy })));
const metaPage = (meta: string, headers: Response['headers'] = {}) =>
  page(headers, `<html><head><meta http-equiv="Content-Security-Policy" content="${meta}"></head></html>`);

describe('HSTS', () => {
  it('ignores HSTS received over plain http, as browsers do (RFC 6797 8.1)', () => {
    const found = hstsChecks(
      page(
        { 'strict-transport-security': 'max-age=63072000; includeSubDomains; preload' },
        '',
        'http://example.com/',
      ),
    );
    expect(only(found)).toEqual({ id: 'headers.hsts.missing', points: -20 });
    expect(found[0]!.evidence).toContain('RFC 6797 8.1');
  });

  it('credits the same header over https', () => {
    expect(
      only(hstsChecks(page({ 'strict-transport-security': 'max-age=63072000; includeSubDomains; preload' }))),
    ).toEqual({ id: 'headers.hsts.preload', points: 5 });
  });
});

describe('Content-Security-Policy', () => {
  it("takes -20 for 'unsafe-inline', data: or a broad source in script-src, or objects unrestricted", () => {
    for (const policy of [
      "default-src 'self'; script-src 'self' 'unsafe-inline'",
      "default-src 'self'; script-src 'self' data:",
      "default-src 'self'; script-src https:",
      "default-src 'self'; object-src *",
      "script-src 'self'",
    ])
      expect(csp(policy)).toEqual({ id: 'headers.csp.unsafe', points: -20 });
  });

  it("takes -10 for 'unsafe-eval' alone", () => {
    expect(csp("default-src 'self'; script-src 'self' 'unsafe-eval'; object-src 'none'")).toEqual({
      id: 'headers.csp.unsafe-eval',
      points: -10,
    });
  });

  it("lets a nonce or hash neutralise 'unsafe-inline', and 'strict-dynamic' the host sources", () => {
    expect(csp("default-src 'self'; script-src 'nonce-abc' 'unsafe-inline'; object-src 'none'")).toEqual({
      id: 'headers.csp.strict',
      points: 5,
    });
    expect(csp("object-src 'none'; script-src 'nonce-abc' 'strict-dynamic' https: 'unsafe-inline'")).toEqual({
      id: 'headers.csp.strict',
      points: 5,
    });
  });

  it('reads a policy given in <meta http-equiv> as browsers enforce it', () => {
    const found = cspChecks(metaPage("default-src 'self'; object-src 'none'"));
    expect(only(found)).toEqual({ id: 'headers.csp.strict', points: 5 });
    expect(found[0]!.evidence).toContain('<meta http-equiv>');
  });

  it('ignores frame-ancestors, report-uri and sandbox in <meta>, for the policy and for framing', () => {
    expect(only(cspChecks(metaPage("frame-ancestors 'none'; sandbox")))).toEqual({
      id: 'headers.csp.missing',
      points: -25,
    });
    expect(only(framingChecks(metaPage("default-src 'self'; frame-ancestors 'none'")))).toEqual({
      id: 'headers.framing.missing',
      points: -20,
    });
  });

  it('counts a Report-Only policy as no policy', () => {
    const found = cspChecks(page({ 'content-security-policy-report-only': "default-src 'self'" }));
    expect(only(found)).toEqual({ id: 'headers.csp.missing', points: -25 });
    expect(found[0]!.evidence).toContain('Report-Only');
  });
});

describe('framing', () => {
  it('gives ALLOW-FROM no credit: current browsers ignore it (stricter than the Observatory)', () => {
    const found = framingChecks(page({ 'x-frame-options': 'ALLOW-FROM https://partner.example' }));
    expect(only(found)).toEqual({ id: 'headers.framing.missing', points: -20 });
    expect(found[0]!.evidence).toContain('ignored by current browsers');
  });
});

describe('Referrer-Policy', () => {
  const referrer = (value: string) => only(referrerChecks(page({ 'referrer-policy': value })));

  it('reports origin-when-cross-origin and origin as leaky, not as missing', () => {
    expect(referrer('origin-when-cross-origin')).toEqual({ id: 'headers.referrer.unsafe', points: -5 });
    expect(referrer('origin')).toEqual({ id: 'headers.referrer.unsafe', points: -5 });
    expect(referrer('unsafe-url')).toEqual({ id: 'headers.referrer.unsafe', points: -5 });
  });

  it('applies the last policy browsers know, skipping unknown fallbacks', () => {
    expect(referrer('no-referrer, strict-origin-when-cross-origin')).toEqual({
      id: 'headers.referrer.ok',
      points: 5,
    });
    expect(referrer('strict-origin, some-future-policy')).toEqual({ id: 'headers.referrer.ok', points: 5 });
    expect(referrer('nonsense')).toEqual({ id: 'headers.referrer.invalid', points: -5 });
  });

  it('reads <meta name="referrer">, after the header', () => {
    const meta = '<meta name="referrer" content="no-referrer">';
    expect(only(referrerChecks(page({}, meta)))).toEqual({ id: 'headers.referrer.ok', points: 5 });
    expect(only(referrerChecks(page({ 'referrer-policy': 'unsafe-url' }, meta)))).toEqual({
      id: 'headers.referrer.ok',
      points: 5,
    });
    expect(only(referrerChecks(page()))).toEqual({ id: 'headers.referrer.missing', points: 0 });
  });
});

describe('cookies', () => {
  const judged = (lines: string[], overHttps = true) =>
    cookieChecks(lines, overHttps).map((f) => [f.id, f.score_modifier, f.evidence]);

  it('takes -30 for a session cookie without HttpOnly', () => {
    expect(
      judged(['PHPSESSID=abc; Secure; SameSite=Lax', 'login_token=x; Secure; HttpOnly; SameSite=Lax']),
    ).toEqual([['cookies.httponly.missing', -30, 'PHPSESSID']]);
  });

  it('lets anti-CSRF tokens and preferences go without HttpOnly', () => {
    expect(judged(['csrftoken=x; Secure; SameSite=Strict', 'XSRF-TOKEN=y; Secure; SameSite=Lax'])).toEqual([
      [
        'cookies.ok',
        5,
        'csrftoken, XSRF-TOKEN; readable by scripts, not session cookies: csrftoken, XSRF-TOKEN',
      ],
    ]);
  });

  it('takes -20 for an anti-CSRF token without SameSite', () => {
    expect(judged(['csrftoken=x; Secure'])).toEqual([['cookies.samesite.csrf-missing', -20, 'csrftoken']]);
  });

  it('reports Secure cookies set by a site that serves only http: browsers drop them', () => {
    expect(judged(['sessionid=x; Secure; SameSite=Lax'], false)).toEqual([
      ['cookies.secure.dropped', -20, 'sessionid'],
    ]);
    expect(judged(['sessionid=x; HttpOnly; SameSite=Lax'], false)).toEqual([
      ['cookies.secure.session-missing', -40, 'sessionid'],
    ]);
  });
});

describe('passive CORS', () => {
  const preflight = (headers: Response['headers']) => ({ ...page(headers), status: 204 });

  it('takes -50 for the preflight origin reflected with credentials', () => {
    const found = corsChecks({
      page: page(),
      preflight: preflight({
        'access-control-allow-origin': PREFLIGHT_ORIGIN,
        'access-control-allow-credentials': 'true',
      }),
    });
    expect(only(found)).toEqual({ id: 'headers.cors.reflected-credentials', points: -50 });
    expect(found[0]!.severity).toBe('critical');
  });

  it('reports Access-Control-Allow-Origin: * without points, as the Observatory scores it', () => {
    const found = corsChecks({ page: page({ 'access-control-allow-origin': '*' }), preflight: null });
    expect(only(found)).toEqual({ id: 'headers.cors.universal', points: 0 });
    expect(found[0]!.passed).toBe(false);
  });

  it('reports an origin reflected without credentials, and passes a named origin or none', () => {
    expect(
      only(
        corsChecks({
          page: page(),
          preflight: preflight({ 'access-control-allow-origin': PREFLIGHT_ORIGIN }),
        }),
      ),
    ).toEqual({ id: 'headers.cors.reflected', points: 0 });
    expect(
      only(
        corsChecks({
          page: page(),
          preflight: preflight({
            'access-control-allow-origin': 'https://app.example.com',
            'access-control-allow-credentials': 'true',
          }),
        }),
      ),
    ).toEqual({ id: 'headers.cors.ok', points: 0 });
    expect(only(corsChecks({ page: page(), preflight: null }))).toEqual({ id: 'headers.cors.ok', points: 0 });
  });
});

describe('version banners', () => {
  it('reports each banner with its evidence and remediation, for no points', () => {
    const found = bannerChecks(
      page(
        {
          server: 'Apache/2.4.41 (Ubuntu)',
          'x-powered-by': 'PHP/7.4.3',
          'x-aspnet-version': '4.0.30319',
          'x-aspnetmvc-version': '5.2',
        },
        '<meta name="generator" content="WordPress 6.4.2">',
      ),
    );
    expect(found.map((f) => [f.id, f.evidence, f.severity, f.score_modifier])).toEqual([
      ['headers.banner.server', 'Server: Apache/2.4.41 (Ubuntu)', 'low', 0],
      ['headers.banner.x-powered-by', 'X-Powered-By: PHP/7.4.3', 'low', 0],
      ['headers.banner.x-aspnet-version', 'X-AspNet-Version: 4.0.30319', 'low', 0],
      ['headers.banner.x-aspnetmvc-version', 'X-AspNetMvc-Version: 5.2', 'low', 0],
      ['headers.banner.generator', '<meta name="generator" content="WordPress 6.4.2">', 'low', 0],
    ]);
    expect(found.every((f) => f.remediation.length > 0 && !f.passed)).toBe(true);
  });

  it('passes a product name without a version', () => {
    expect(
      bannerChecks(page({ server: 'nginx' }, '<meta name="generator" content="Hugo">')).map((f) => f.id),
    ).toEqual(['headers.banner.none']);
  });
});
