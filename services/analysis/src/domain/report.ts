import { byCodeUnits, REPORT_AREA_NAMES, type Finding, type Report } from '@meridian/contracts';
import { changesSince as changesAgainst } from './changes.js';

/** Problems new since the previous report and problems it had that are gone (by finding id). */
export function changesSince(
  previous: Report | null | undefined,
  findings: readonly Finding[],
): Report['changes'] {
  return previous ? changesAgainst(previous, findings) : null;
}

const ORDER = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** One sentence for the top of the report. */
export function summarize(
  domain: string,
  score: number | null,
  grade: string | null,
  findings: readonly Finding[],
): string {
  const problems = findings.filter((f) => f.outcome === 'problem');
  const counts = ORDER.map((s) => [s, problems.filter((f) => f.severity === s).length] as const).filter(
    ([, n]) => n > 0,
  );
  const listed = counts.map(([s, n]) => `${n} ${s}`).join(', ');
  const passed = findings.filter((f) => f.outcome === 'passed').length;
  const skipped = findings.length - problems.length - passed;
  const graded =
    grade === null ? 'not graded, the home page answers a server error' : `grade ${grade} (score ${score})`;
  return `${domain}: ${graded}; ${problems.length === 0 ? 'no problems found' : `${problems.length} problems (${listed})`}, ${passed} checks passed${skipped ? `, ${skipped} not run` : ''}.`;
}

/** Findings in reading order: problems first by severity, then checks not run, then passed checks. */
export function ordered(findings: readonly Finding[]): Finding[] {
  const rank = (f: Finding) =>
    f.outcome === 'passed' ? 11 : f.outcome === 'not_run' ? 10 : ORDER.indexOf(f.severity);
  return [...findings].sort((a, b) => rank(a) - rank(b) || byCodeUnits(a.id, b.id));
}

/** Each area's grade in one line, e.g. "Headers C+ 60 · Transport (TLS) F 0 · …"; '' before areas existed. */
export function areasLine(report: Report): string {
  return (report.areas ?? [])
    .map((a) => `${REPORT_AREA_NAMES[a.area]} ${a.grade === null ? 'not graded' : `${a.grade} ${a.score}`}`)
    .join(' · ');
}
