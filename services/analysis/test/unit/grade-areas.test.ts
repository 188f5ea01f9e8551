import { describe, expect, it } from '@jest/globals';
import type { Finding } from '@meridian/contracts';
import { cookieChecks } from '../../src/domain/checks/cookies.js';
import { fail, notRun } from '../../src/domain/checks/finding.js';
import { headerChecks, redirectChecks } from '../../src/domain/checks/http.js';
import { scoreAreas, scoreFindings } from '../../src/domain/grade.js';
import type { HttpObservation, Response } from '../../src/domain/observations.js';

// A hardened site and a careless one, both served over plain http only: the overall score floors
// both at 0 (no https -50, dropped Secure cookies -20, HSTS -20, mail -10), where the HTTP
// Observatory gives C+ 60 and F 0. The headers area is scored as the Observatory scores it.

const HARDENED = {
  'content-security-policy': "default-src 'self'; object-src 'none'; frame-ancestors 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
};

function httpOnlySite(headers: Response['headers'], cookies: string[]): Finding[] {
  const home: Response = {
    url: 'http://example.com/',
    status: 200,
    headers,
    body: '',
    bytes: 0,
    truncated: false,
    ttfbMs: 40,
  };
  const obs: HttpObservation = {
    plain: [home],
    plain_error: null,
    secure: null,
    secure_error: 'connection refused',
  };
  const mail = fail(
    'mail.dmarc.missing',
    'mail',
    'No DMARC record',
    'medium',
    'no record',
    'Publish DMARC.',
    -10,
  );
  const tls = notRun('tls.unavailable', 'tls', 'TLS was not tested', 'no https', 'Serve https.');
  return [
    ...redirectChecks(obs, 'example.com'),
    ...headerChecks(home, null),
    ...cookieChecks(cookies, false),
    mail,
    tls,
  ];
}

describe('scores by area', () => {
  const hardened = httpOnlySite(HARDENED, ['sessionid=x; Secure; HttpOnly; SameSite=Lax']);
  const careless = httpOnlySite({}, ['sessionid=x']);

  it('floors both sites at 0 overall', () => {
    expect(scoreFindings(hardened)).toEqual({ score: 0, grade: 'F' });
    expect(scoreFindings(careless)).toEqual({ score: 0, grade: 'F' });
  });

  it('tells them apart on headers: C+ 60 (missing redirection -20, HSTS -20) against F 0', () => {
    const headers = (found: Finding[]) => scoreAreas(found).find((a) => a.area === 'headers');
    expect(headers(hardened)).toEqual({ area: 'headers', score: 60, grade: 'C+' });
    expect(headers(careless)).toEqual({ area: 'headers', score: 0, grade: 'F' });
  });

  it('gives transport the full cost of no https, mail and DNS its own, and no grade where nothing ran', () => {
    expect(scoreAreas(hardened)).toEqual([
      { area: 'headers', score: 60, grade: 'C+' },
      { area: 'transport', score: 50, grade: 'C' },
      { area: 'mail_dns', score: 90, grade: 'A' },
      { area: 'exposure', score: null, grade: null },
    ]);
  });

  it('grades no area of a site that could not be graded', () => {
    const error = fail('http.page.error', 'http', 'Server error', 'high', '500', 'Fix it.');
    expect(scoreAreas([...hardened, error]).every((a) => a.score === null && a.grade === null)).toBe(true);
  });
});
