import type { Finding, gradeSchema, ReportArea, ReportAreaScore } from '@meridian/contracts';
import type { z } from 'zod';
import { UNGRADED_FINDING } from './checks/http.js';

export type Grade = z.infer<typeof gradeSchema>;

/**
 * The HTTP Observatory grade chart (mozilla/http-observatory, httpobs/docs/scoring.md): the
 * lowest score of each grade. Scores start at 100; there is no maximum.
 */
export const GRADE_TABLE: readonly [number, Grade][] = [
  [100, 'A+'],
  [90, 'A'],
  [85, 'A-'],
  [80, 'B+'],
  [70, 'B'],
  [65, 'B-'],
  [60, 'C+'],
  [50, 'C'],
  [45, 'C-'],
  [40, 'D+'],
  [30, 'D'],
  [20, 'D-'],
  [0, 'F'],
];

export const BASELINE = 100;
/** Bonuses count only when the score without them is at least this (an A). */
export const BONUS_THRESHOLD = 90;

export function gradeOf(score: number): Grade {
  return GRADE_TABLE.find(([min]) => score >= min)![1];
}

/**
 * Findings that are one defect seen by two checks: the passive CORS preflight of every tier and
 * the active CORS test. The defect costs its points once.
 */
const SAME_DEFECT: readonly (readonly string[])[] = [
  ['headers.cors.reflected-credentials', 'active.cors.reflected-credentials'],
];

function penaltyOf(findings: readonly Finding[]): number {
  const worstOfDefect = new Map<number, number>();
  let sum = 0;
  for (const f of findings) {
    const penalty = Math.min(0, f.score_modifier);
    const defect = SAME_DEFECT.findIndex((ids) => ids.includes(f.id));
    if (defect < 0) sum += penalty;
    else worstOfDefect.set(defect, Math.min(worstOfDefect.get(defect) ?? 0, penalty));
  }
  return sum + [...worstOfDefect.values()].reduce((a, b) => a + b, 0);
}

/** Baseline 100 plus every penalty; the bonuses only if that is already 90 or more; never below 0. */
function scoreOf(findings: readonly Finding[]): number {
  const penalties = penaltyOf(findings);
  const bonuses = findings.reduce((sum, f) => sum + Math.max(0, f.score_modifier), 0);
  let score = BASELINE + penalties;
  if (score >= BONUS_THRESHOLD) score += bonuses;
  return Math.max(0, score);
}

/**
 * The overall score and grade: every finding counts. A site whose home page answers a server
 * error is not graded at all (null): the checks would grade the error page, not the site.
 */
export function scoreFindings(findings: readonly Finding[]): { score: number | null; grade: Grade | null } {
  if (findings.some((f) => f.id === UNGRADED_FINDING)) return { score: null, grade: null };
  const score = scoreOf(findings);
  return { score, grade: gradeOf(score) };
}

/**
 * Which area a finding belongs to. Headers is what the HTTP Observatory grades (headers,
 * cookies, redirection, SRI); transport is TLS and whether https exists; mail and DNS; exposure
 * is exposed files and the active tests. The review moves no points and has no area.
 */
function areasOf(f: Finding): ReportArea[] {
  if (f.id === 'http.https.unavailable') return ['headers', 'transport'];
  switch (f.category) {
    case 'headers':
    case 'cookies':
    case 'content':
      return ['headers'];
    case 'http':
      return f.id === UNGRADED_FINDING ? [] : ['headers'];
    case 'tls':
      return ['transport'];
    case 'dns':
    case 'mail':
      return ['mail_dns'];
    case 'files':
    case 'active':
      return ['exposure'];
    case 'review':
      return [];
  }
}

/**
 * In the headers area a finding counts what the Observatory's rule gives where ours differs on
 * purpose (services/analysis/docs/scoring.md, our departures): no https at all is its missing
 * redirection (-20), and Secure cookies sent over http pass there. The overall score keeps ours.
 */
const OBSERVATORY_FIGURE: Readonly<Record<string, number>> = {
  'http.https.unavailable': -20,
  'cookies.secure.dropped': 0,
};

const AREA_ORDER: readonly ReportArea[] = ['headers', 'transport', 'mail_dns', 'exposure'];

/**
 * Each area's own score and grade beside the overall one (as internet.nl and Hardenize show
 * them), so that a floor of 0 overall never hides a difference: a hardened site served over
 * http and a careless one both score 0 overall, but not on headers. An area none of whose
 * checks ran, or a site that could not be graded, has no score there.
 */
export function scoreAreas(findings: readonly Finding[]): ReportAreaScore[] {
  const ungraded = findings.some((f) => f.id === UNGRADED_FINDING);
  return AREA_ORDER.map((area) => {
    const own = findings
      .filter((f) => areasOf(f).includes(area))
      .map((f) =>
        area === 'headers' && f.id in OBSERVATORY_FIGURE
          ? { ...f, score_modifier: OBSERVATORY_FIGURE[f.id]! }
          : f,
      );
    if (ungraded || !own.some((f) => f.outcome !== 'not_run')) return { area, score: null, grade: null };
    const score = scoreOf(own);
    return { area, score, grade: gradeOf(score) };
  });
}
