import type { Finding, Report } from '@meridian/contracts';

const problems = (findings: Finding[]) => new Set(findings.filter((f) => !f.passed).map((f) => f.id));

/** What changed since the previous report: problems that appeared and problems that went away. */
export function changesSince(previous: Report, findings: Finding[]): NonNullable<Report['changes']> {
  const before = problems(previous.findings);
  const now = problems(findings);
  return {
    previous_run_id: previous.run_id,
    new: [...now].filter((id) => !before.has(id)).sort(),
    resolved: [...before].filter((id) => !now.has(id)).sort(),
  };
}
