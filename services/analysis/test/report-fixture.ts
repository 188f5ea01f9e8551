import { SEVERITIES, type Finding, type Report } from '@meridian/contracts';

/** A finished report with `problems` failing findings (severities in turn) and two passed checks. */
export function sampleReport(runId: string, problems = 3): Report {
  const findings: Finding[] = Array.from({ length: problems }, (_, i) => ({
    id: `headers.check_${i}.missing`,
    category: 'headers',
    title: i === 0 ? 'Strict-Transport-Security header missing' : `Finding number ${i}`,
    severity: SEVERITIES[i % SEVERITIES.length]!,
    outcome: 'problem',
    passed: false,
    evidence:
      i === 0
        ? 'No Strict-Transport-Security in the answer of https://shop.example.com/'
        : `Evidence <b>${i}</b> & more`,
    remediation: 'Send Strict-Transport-Security: max-age=31536000; includeSubDomains.',
    score_modifier: -5,
  }));
  findings.push(
    {
      id: 'tls.tls13.offered',
      category: 'tls',
      title: 'TLS 1.3 offered',
      severity: 'info',
      outcome: 'passed',
      passed: true,
      evidence: 'TLSv1.3',
      remediation: '',
      score_modifier: 0,
    },
    {
      id: 'http.redirect.https',
      category: 'http',
      title: 'HTTP redirects to HTTPS',
      severity: 'info',
      outcome: 'passed',
      passed: true,
      evidence: '301 to https://shop.example.com/',
      remediation: '',
      score_modifier: 0,
    },
  );
  return {
    run_id: runId,
    domain: 'shop.example.com',
    tier: 'audit_base',
    status: 'succeeded',
    started_at: '2026-11-25T10:00:00.000Z',
    finished_at: '2026-11-25T10:01:00.000Z',
    score: 65,
    grade: 'C',
    summary: `${problems} problems found on shop.example.com; fix the high ones first.`,
    findings,
    changes: null,
    review: null,
  };
}
