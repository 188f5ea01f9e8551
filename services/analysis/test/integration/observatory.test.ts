import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Finding } from '@meridian/contracts';
import { scoreFindings, type Grade } from '../../src/domain/grade.js';
import { startObservatoryBed, type ObservatoryBed, type ObservatorySite } from './observatory-sites.js';

// The @mdn/mdn-http-observatory scanner cannot be pointed at these sites offline: its install step
// downloads the HSTS preload and TLD lists, and scan(hostname) passes no options to its retriever,
// so it reaches ports 80 and 443 only. Each site's expected result is therefore written from the
// Observatory's published rules (analyzer tests and score table of version 1.4.8), beside ours.

interface Case {
  site: ObservatorySite;
  /** Findings the configuration must get, with their points. */
  findings: Record<string, number>;
  /** What the Observatory's rules give the site: [score, grade] and the rules that apply. */
  observatory: [number, Grade, string];
  /** Our result where docs/scoring.md departs from the Observatory on purpose. */
  ours?: [number, Grade, string];
}

const SITES: Record<string, Case> = {
  'baseline.test': {
    site: {},
    findings: {
      'headers.csp.strict': 5,
      'headers.framing.csp': 5,
      'headers.referrer.ok': 5,
      'headers.hsts.ok': 0,
    },
    observatory: [115, 'A+', 'csp-implemented-with-no-unsafe +5, via-csp +5, referrer-policy-private +5'],
  },
  'plain-hsts.test': {
    site: {
      plainOnly: true,
      headers: { 'strict-transport-security': 'max-age=63072000; includeSubDomains; preload' },
    },
    findings: { 'headers.hsts.missing': -20, 'http.https.unavailable': -50 },
    observatory: [60, 'C+', 'hsts-not-implemented-no-https -20, redirection-missing -20; no bonus under 90'],
    ours: [30, 'D', 'no HTTPS at all costs -50 where the Observatory takes -20 for the missing redirection'],
  },
  'inline.test': {
    site: {
      headers: {
        'content-security-policy':
          "default-src 'self'; script-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'",
      },
    },
    findings: { 'headers.csp.unsafe': -20 },
    observatory: [80, 'B+', 'csp-implemented-with-unsafe-inline -20; no bonus under 90'],
  },
  'meta-csp.test': {
    site: {
      headers: { 'content-security-policy': null, 'x-frame-options': 'DENY' },
      head: `<meta http-equiv="Content-Security-Policy" content="default-src 'self'; object-src 'none'">`,
    },
    findings: { 'headers.csp.strict': 5, 'headers.framing.xfo': 0 },
    observatory: [
      110,
      'A+',
      'csp-implemented-with-no-unsafe (meta) +5, x-frame-options-sameorigin-or-deny 0',
    ],
  },
  'referrer.test': {
    site: { headers: { 'referrer-policy': 'origin-when-cross-origin' } },
    findings: { 'headers.referrer.unsafe': -5 },
    observatory: [105, 'A+', 'referrer-policy-unsafe -5; bonuses +10 at 95'],
  },
  'unsafe-url.test': {
    site: { headers: { 'referrer-policy': 'unsafe-url' } },
    findings: { 'headers.referrer.unsafe': -5 },
    observatory: [105, 'A+', 'referrer-policy-unsafe -5; bonuses +10 at 95'],
  },
  'xcto.test': {
    site: { headers: { 'x-content-type-options': null } },
    findings: { 'headers.xcto.missing': -5 },
    observatory: [110, 'A+', 'x-content-type-options-not-implemented -5; bonuses +15 at 95'],
  },
  'sri.test': {
    site: { head: '<script src="http://cdn.elsewhere.example/lib.js"></script>' },
    findings: { 'content.sri.insecure': -50 },
    observatory: [50, 'C', 'sri-not-implemented-and-external-scripts-not-loaded-securely -50'],
  },
  'session.test': {
    site: { headers: { 'set-cookie': 'sessionid=abc123; Path=/; Secure; SameSite=Lax' } },
    findings: { 'cookies.httponly.missing': -30 },
    observatory: [70, 'B', 'cookies-session-without-httponly-flag -30'],
  },
  'csrf.test': {
    site: { headers: { 'set-cookie': 'csrftoken=abc123; Path=/; Secure; SameSite=Strict' } },
    findings: { 'cookies.ok': 5 },
    observatory: [120, 'A+', 'cookies-secure-with-httponly-sessions-and-samesite +5'],
  },
  'cors-any.test': {
    site: { headers: { 'access-control-allow-origin': '*' } },
    findings: { 'headers.cors.universal': 0 },
    observatory: [115, 'A+', 'cross-origin-resource-sharing-implemented-with-public-access 0'],
  },
  'cors-reflect.test': {
    site: { reflectOrigin: true },
    findings: { 'headers.cors.reflected-credentials': -50 },
    observatory: [50, 'C', 'cross-origin-resource-sharing-implemented-with-universal-access -50'],
  },
  'dropped.test': {
    site: {
      plainOnly: true,
      headers: { 'set-cookie': 'sessionid=abc123; Path=/; Secure; HttpOnly; SameSite=Lax' },
    },
    findings: { 'cookies.secure.dropped': -20, 'headers.hsts.missing': -20, 'http.https.unavailable': -50 },
    // Its cookie jar (tough-cookie 5) keeps a Secure cookie set over http, so its cookies test passes.
    observatory: [60, 'C+', 'hsts-not-implemented-no-https -20, redirection-missing -20, cookies pass'],
    ours: [
      10,
      'F',
      'no HTTPS -50 instead of -20; browsers drop the Secure cookie: cookies.secure.dropped -20',
    ],
  },
  'allow-from.test': {
    site: {
      headers: {
        'content-security-policy': "default-src 'self'; object-src 'none'",
        'x-frame-options': 'ALLOW-FROM https://partner.example',
      },
    },
    findings: { 'headers.framing.missing': -20 },
    observatory: [110, 'A+', 'x-frame-options-allow-from-origin 0'],
    ours: [80, 'B+', 'ALLOW-FROM is no protection in current browsers: framing missing -20'],
  },
  'banners.test': {
    site: {
      headers: {
        server: 'Apache/2.4.41 (Ubuntu)',
        'x-powered-by': 'PHP/7.4.3',
        'x-aspnet-version': '4.0.30319',
        'x-aspnetmvc-version': '5.2',
      },
      head: '<meta name="generator" content="WordPress 6.4.2">',
    },
    findings: {
      'headers.banner.server': 0,
      'headers.banner.x-powered-by': 0,
      'headers.banner.x-aspnet-version': 0,
      'headers.banner.x-aspnetmvc-version': 0,
      'headers.banner.generator': 0,
    },
    observatory: [115, 'A+', 'banners are not scored'],
  },
};

/** Our findings on what the Observatory tests: redirection, headers, cookies, CORS and SRI. */
const observatoryScope = (findings: Finding[]) =>
  findings.filter(
    (f) => ['http', 'headers', 'cookies'].includes(f.category) || f.id.startsWith('content.sri.'),
  );

let bed: ObservatoryBed;

beforeAll(async () => {
  bed = await startObservatoryBed(Object.fromEntries(Object.entries(SITES).map(([h, c]) => [h, c.site])));
}, 60_000);

afterAll(async () => bed?.close());

const audit = (domain: string, plainOnly: boolean) => bed.audit(domain, plainOnly);

describe('our grade beside the HTTP Observatory rules, on one local site per configuration', () => {
  it.each(Object.entries(SITES))(
    '%s',
    async (domain, c) => {
      const report = await audit(domain, c.site.plainOnly === true);
      const scope = observatoryScope(report.findings);
      const got = Object.fromEntries(
        Object.keys(c.findings).map((id) => [id, scope.find((f) => f.id === id)?.score_modifier ?? 'absent']),
      );
      expect(got).toEqual(c.findings);
      const [score, grade] = c.ours ?? c.observatory;
      expect(scoreFindings(scope)).toEqual({ score, grade });
    },
    60_000,
  );

  it('credits no HSTS received over plain http', async () => {
    const report = await audit('plain-hsts.test', true);
    expect(report.findings.map((f) => f.id)).not.toContain('headers.hsts.preload');
    expect(report.findings.find((f) => f.id === 'headers.hsts.missing')?.evidence).toContain('RFC 6797 8.1');
  }, 60_000);
});
