import type { Finding, Report } from '@meridian/contracts';

const problems = (findings: readonly Finding[]) =>
  new Set(findings.filter((f) => f.outcome === 'problem').map((f) => f.id));

/**
 * What changed since the previous report: problems that appeared and problems that went away. A
 * check that did not run is neither; a problem of a stage that delivered nothing this time is not
 * resolved, only unseen.
 */
export function changesSince(previous: Report, findings: readonly Finding[]): NonNullable<Report['changes']> {
  const before = problems(previous.findings);
  const now = problems(findings);
  const unseen = new Set(
    findings
      .filter((f) => f.outcome === 'not_run')
      .map((f) => f.category)
      .filter((category) => !findings.some((f) => f.category === category && f.outcome !== 'not_run')),
  );
  const category = new Map(previous.findings.map((f) => [f.id, f.category]));
  return {
    previous_run_id: previous.run_id,
    new: [...now].filter((id) => !before.has(id)).sort(),
    resolved: [...before].filter((id) => !now.has(id) && !unseen.has(category.get(id)!)).sort(),
  };
}
