import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AuditTier, Finding } from '@meridian/contracts';
import { undeliveredAmount, undeliveredStages } from '../../src/domain/delivery.js';
import { scoreFindings, type Grade } from '../../src/domain/grade.js';
import { startObservatoryBed, type ObservatoryBed, type ObservatorySite } from './observatory-sites.js';

// The configurations where Meridian and the MDN HTTP Observatory 1.4.8 disagreed, each on a local
// site through the whole pipeline. Expected points are the rule's (observatory-departures unit test
// and services/analysis/docs/scoring.md); every site starts from the baseline page the Observatory scores 115.

interface Case {
  site: ObservatorySite;
  findings: Record<string, number>;
  /** Score and grade over what the Observatory tests, and why. */
  expected: [number, Grade, string];
}

const SITES: Record<string, Case> = {
  'strict-dynamic.test': {
    site: {
      headers: {
        'content-security-policy':
          "script-src 'strict-dynamic' 'self'; object-src 'none'; frame-ancestors 'none'",
      },
    },
    findings: { 'headers.csp.invalid': -25 },
    expected: [75, 'B', 'csp-header-invalid -25; no bonus under 90'],
  },
  'insecure-scheme.test': {
    site: {
      headers: {
        'content-security-policy':
          "default-src 'self'; connect-src http://api.example.com; object-src 'none'; frame-ancestors 'none'",
      },
    },
    findings: { 'headers.csp.insecure-scheme': -20 },
    expected: [80, 'B+', 'csp-implemented-with-insecure-scheme -20; no bonus under 90'],
  },
  'repeated.test': {
    site: {
      headers: {
        'content-security-policy':
          "default-src 'self'; object-src 'none'; object-src *; frame-ancestors 'none'",
      },
    },
    findings: { 'headers.csp.strict': 5, 'headers.csp.repeated-directive': 0 },
    expected: [115, 'A+', 'departure: browsers keep the first directive, so no -25'],
  },
  'session-hsts.test': {
    site: { headers: { 'set-cookie': 'sessionid=x; HttpOnly; SameSite=Lax' } },
    findings: { 'cookies.secure.session-missing': -10 },
    expected: [105, 'A+', 'cookies-session-without-secure-flag-but-protected-by-hsts -10; bonuses at 90'],
  },
  'session-plain.test': {
    site: {
      headers: { 'set-cookie': 'sessionid=x; HttpOnly; SameSite=Lax', 'strict-transport-security': null },
    },
    findings: { 'cookies.secure.session-missing': -40, 'headers.hsts.missing': -20 },
    expected: [40, 'D+', 'cookies-session-without-secure-flag -40, hsts-not-implemented -20'],
  },
  'samesite-invalid.test': {
    site: { headers: { 'set-cookie': 'theme=dark; Secure; SameSite=Sometimes' } },
    findings: { 'cookies.samesite.invalid': -20 },
    expected: [80, 'B+', 'cookies-samesite-flag-invalid -20'],
  },
  'none-insecure.test': {
    site: { headers: { 'set-cookie': 'theme=dark; SameSite=None' } },
    findings: { 'cookies.samesite.none-insecure': -20 },
    expected: [80, 'B+', 'SameSite=None without Secure -20, once'],
  },
  'host-prefix.test': {
    site: { headers: { 'set-cookie': '__Host-id=1; Secure; Path=/app; SameSite=Lax' } },
    findings: { 'cookies.prefix.invalid': -20 },
    expected: [80, 'B+', 'departure: browsers refuse the cookie, as a Secure cookie over http (-20)'],
  },
  'hsts-180.test': {
    site: { headers: { 'strict-transport-security': 'max-age=15552000' } },
    findings: { 'headers.hsts.ok': 0 },
    expected: [115, 'A+', 'strict-transport-security-implemented-max-age-at-least-six-months 0'],
  },
  'framing-star.test': {
    site: {
      headers: {
        'content-security-policy': "default-src 'self'; object-src 'none'; frame-ancestors *",
        'x-frame-options': 'DENY',
      },
    },
    findings: { 'headers.framing.missing': -20 },
    expected: [80, 'B+', 'departure from both scanners: browsers ignore XFO beside frame-ancestors'],
  },
};

const ERROR_SITE = 'error-500.test';
const inScope = (findings: Finding[]) =>
  findings.filter(
    (f) => ['http', 'headers', 'cookies'].includes(f.category) || f.id.startsWith('content.sri.'),
  );

let bed: ObservatoryBed;

beforeAll(async () => {
  const sites: Record<string, ObservatorySite> = Object.fromEntries(
    Object.entries(SITES).map(([h, c]) => [h, c.site]),
  );
  sites[ERROR_SITE] = { status: 500 };
  bed = await startObservatoryBed(sites);
}, 60_000);

afterAll(async () => bed?.close());

const audit = (domain: string) => bed.audit(domain);

describe('the departures from the HTTP Observatory, each on a local site', () => {
  it.each(Object.entries(SITES))(
    '%s',
    async (domain, c) => {
      const report = await audit(domain);
      const scope = inScope(report.findings);
      const got = Object.fromEntries(
        Object.keys(c.findings).map((id) => [id, scope.find((f) => f.id === id)?.score_modifier ?? 'absent']),
      );
      expect(got).toEqual(c.findings);
      const [score, grade] = c.expected;
      expect(scoreFindings(scope)).toEqual({ score, grade });
      expect(report.areas?.find((a) => a.area === 'headers')).toEqual({ area: 'headers', score, grade });
    },
    60_000,
  );

  it('does not grade a site whose home page answers 500, and refunds the part that delivered nothing', async () => {
    const report = await audit(ERROR_SITE);
    expect(report.findings.find((f) => f.id === 'http.page.error')?.evidence).toContain('500');
    expect([report.score, report.grade]).toEqual([null, null]);
    expect(report.summary).toContain('not graded');
    const undelivered = undeliveredStages('audit_base', report.findings);
    expect(undelivered).toEqual(['headers', 'cookies', 'content']);
    const prices = new Map<AuditTier, number | null>([['audit_base', 49_000_000]]);
    expect(undeliveredAmount(undelivered, prices, 49_000_000)).toBe(49_000_000);
  }, 60_000);
});
