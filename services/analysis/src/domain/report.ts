import { byCodeUnits, type Finding, type Report } from '@meridian/contracts';

/** Problems new since the previous report and problems it had that are gone (by finding id). */
export function changesSince(
  previous: Report | null | undefined,
  findings: readonly Finding[],
): Report['changes'] {
  if (!previous) return null;
  const problems = (list: readonly Finding[]) => new Set(list.filter((f) => !f.passed).map((f) => f.id));
  const before = problems(previous.findings);
  const now = problems(findings);
  return {
    previous_run_id: previous.run_id,
    new: [...now].filter((id) => !before.has(id)).sort(),
    resolved: [...before].filter((id) => !now.has(id)).sort(),
  };
}

const ORDER = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** One sentence for the top of the report. */
export function summarize(
  domain: string,
  score: number,
  grade: string,
  findings: readonly Finding[],
): string {
  const problems = findings.filter((f) => !f.passed);
  const counts = ORDER.map((s) => [s, problems.filter((f) => f.severity === s).length] as const).filter(
    ([, n]) => n > 0,
  );
  const listed = counts.map(([s, n]) => `${n} ${s}`).join(', ');
  return `${domain}: grade ${grade} (score ${score}); ${problems.length === 0 ? 'no problems found' : `${problems.length} problems (${listed})`}, ${findings.length - problems.length} checks passed.`;
}

/** Findings in reading order: problems first by severity, then passed checks. */
export function ordered(findings: readonly Finding[]): Finding[] {
  const rank = (f: Finding) => (f.passed ? 10 : ORDER.indexOf(f.severity));
  return [...findings].sort((a, b) => rank(a) - rank(b) || byCodeUnits(a.id, b.id));
}
