import type { Finding, gradeSchema } from '@meridian/contracts';
import type { z } from 'zod';

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

/**
 * Baseline 100 plus every penalty; the bonuses are added only if that is already 90 or more;
 * the score never goes below 0.
 */
export function scoreFindings(findings: readonly Finding[]): { score: number; grade: Grade } {
  const penalties = penaltyOf(findings);
  const bonuses = findings.reduce((sum, f) => sum + Math.max(0, f.score_modifier), 0);
  let score = BASELINE + penalties;
  if (score >= BONUS_THRESHOLD) score += bonuses;
  score = Math.max(0, score);
  return { score, grade: gradeOf(score) };
}
