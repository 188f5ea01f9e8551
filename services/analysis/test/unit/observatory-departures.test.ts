import { describe, expect, it } from '@jest/globals';
import type { Finding } from '@meridian/contracts';
import { cookieChecks } from '../../src/domain/checks/cookies.js';
import { cspChecks } from '../../src/domain/checks/csp.js';
import { framingChecks } from '../../src/domain/checks/framing.js';
import { hstsChecks } from '../../src/domain/checks/hsts.js';
import { pageErrorChecks, redirectChecks } from '../../src/domain/checks/http.js';
import { scoreFindings } from '../../src/domain/grade.js';
import type { HttpObservation, Response } from '../../src/domain/observations.js';

// The cases where Meridian and the MDN HTTP Observatory (1.4.8) disagreed on 42 local sites. Each
// expected figure is the rule's: the Observatory's where we now follow it, ours where the analysis
// docs/scoring.md documents a departure with its reason.

function page(headers: Response['headers'] = {}, url = 'https://example.com/', status = 200): Response {
  return { url, status, headers, body: '', bytes: 0, truncated: false, ttfbMs: 50 };
}
const scored = (found: Finding[]) => found.map((f) => [f.id, f.score_modifier]);
const csp = (policy: string, url = 'https://example.com/') =>
  scored(cspChecks(page({ 'content-security-policy': policy }, url)));
const cookies = (lines: string[], hsts = false) => scored(cookieChecks(lines, true, hsts));

describe('Content-Security-Policy', () => {
  it('keeps the first of a repeated directive, as browsers do, and says so without points', () => {
    expect(csp("default-src 'none'; script-src 'self'; script-src *; object-src 'none'")).toEqual([
      ['headers.csp.strict', 5],
      ['headers.csp.repeated-directive', 0],
    ]);
  });

  it("calls 'strict-dynamic' without a nonce or hash invalid: -25 (it earned +5)", () => {
    expect(csp("script-src 'strict-dynamic' 'self'; object-src 'none'")).toEqual([
      ['headers.csp.invalid', -25],
    ]);
    expect(csp("script-src 'strict-dynamic' 'nonce-abc'; object-src 'none'")).toEqual([
      ['headers.csp.strict', 5],
    ]);
  });

  it('takes -20 for an http: source on an https page, -10 when only images or media may use it', () => {
    expect(csp("default-src 'self'; connect-src http://api.example.com; object-src 'none'")).toEqual([
      ['headers.csp.insecure-scheme', -20],
    ]);
    expect(csp("default-src 'self'; img-src http:; object-src 'none'")).toEqual([
      ['headers.csp.insecure-scheme-passive', -10],
    ]);
    expect(csp("default-src 'self'; img-src http:; object-src 'none'", 'http://example.com/')).toEqual([
      ['headers.csp.strict', 5],
    ]);
  });
});

describe('cookies', () => {
  it('takes -40 for a session cookie without Secure, -10 under HSTS; -20 and -5 for other cookies', () => {
    expect(cookies(['sessionid=x; HttpOnly; SameSite=Lax'])).toEqual([
      ['cookies.secure.session-missing', -40],
    ]);
    expect(cookies(['sessionid=x; HttpOnly; SameSite=Lax'], true)).toEqual([
      ['cookies.secure.session-missing', -10],
    ]);
    expect(cookies(['theme=dark; SameSite=Lax'])).toEqual([['cookies.secure.missing', -20]]);
    expect(cookies(['theme=dark; SameSite=Lax'], true)).toEqual([['cookies.secure.missing', -5]]);
  });

  it('takes -20 for a SameSite value browsers do not know (it earned +5)', () => {
    expect(cookies(['theme=dark; Secure; SameSite=Sometimes'])).toEqual([['cookies.samesite.invalid', -20]]);
  });

  it('takes -20 once for SameSite=None without Secure (it cost -25): browsers refuse the cookie', () => {
    expect(cookies(['theme=dark; SameSite=None'])).toEqual([['cookies.samesite.none-insecure', -20]]);
  });

  it('takes -20 for a __Host- or __Secure- cookie that breaks its prefix (it earned +5)', () => {
    for (const line of [
      '__Host-id=1; Secure; Path=/app; SameSite=Lax',
      '__Host-id=1; Secure; Path=/; Domain=example.com; SameSite=Lax',
      '__Secure-id=1; SameSite=Lax',
    ])
      expect(cookies([line])).toEqual([['cookies.prefix.invalid', -20]]);
    expect(cookies(['__Host-id=1; Secure; Path=/; SameSite=Lax'])).toEqual([['cookies.ok', 5]]);
  });
});

describe('HSTS, redirection and framing', () => {
  const hsts = (maxAge: number) =>
    scored(hstsChecks(page({ 'strict-transport-security': `max-age=${maxAge}` })));

  it('accepts 180 days (15,552,000 s), the Observatory minimum; one second less is short (-10)', () => {
    expect(hsts(15_552_000)).toEqual([['headers.hsts.ok', 0]]);
    expect(hsts(15_551_999)).toEqual([['headers.hsts.short', -10]]);
  });

  it('takes -10 when http first redirects to http, even if https follows', () => {
    const hop = (url: string, status = 301) => page({}, url, status);
    const obs: HttpObservation = {
      plain: [
        hop('http://example.com/'),
        hop('http://www.example.com/'),
        hop('https://www.example.com/', 200),
      ],
      plain_error: null,
      secure: [hop('https://example.com/', 200)],
      secure_error: null,
    };
    expect(scored(redirectChecks(obs, 'example.com'))).toEqual([['http.redirect.initial-not-https', -10]]);
  });

  it('takes -20 for frame-ancestors * beside X-Frame-Options: DENY, which browsers then ignore', () => {
    const found = framingChecks(
      page({ 'content-security-policy': 'frame-ancestors *', 'x-frame-options': 'DENY' }),
    );
    expect(scored(found)).toEqual([['headers.framing.missing', -20]]);
    expect(found[0]!.evidence).toContain('ignored');
    expect(scored(framingChecks(page({ 'x-frame-options': 'DENY' })))).toEqual([['headers.framing.xfo', 0]]);
  });
});

describe('a home page answering a server error', () => {
  it('is a finding, and the site gets no score and no grade (it was graded D 30)', () => {
    const found = pageErrorChecks(page({}, 'https://example.com/', 500));
    expect(scored(found)).toEqual([['http.page.error', 0]]);
    expect(scoreFindings(found)).toEqual({ score: null, grade: null });
    expect(pageErrorChecks(page({}, 'https://example.com/', 404))).toEqual([]);
  });
});
