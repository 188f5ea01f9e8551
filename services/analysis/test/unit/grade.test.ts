import { describe, expect, it } from '@jest/globals';
import type { Finding } from '@meridian/contracts';
import { gradeOf, scoreFindings } from '../../src/domain/grade.js';
import { changesSince, summarize } from '../../src/domain/report.js';

const f = (id: string, score_modifier: number, passed = score_modifier >= 0): Finding => ({
  id,
  category: 'headers',
  title: id,
  severity: passed ? 'info' : 'medium',
  outcome: passed ? 'passed' : 'problem',
  passed,
  evidence: '',
  remediation: '',
  score_modifier,
});

describe('the grader', () => {
  it('starts every site at 100, an A+', () => {
    expect(scoreFindings([])).toEqual({ score: 100, grade: 'A+' });
  });

  it('subtracts every penalty', () => {
    expect(scoreFindings([f('a', -25), f('b', -20), f('c', -5)])).toEqual({ score: 50, grade: 'C' });
  });

  it('adds bonuses only when the score without them is 90 or more', () => {
    expect(scoreFindings([f('a', -10), f('b', 5), f('c', 5)])).toEqual({ score: 100, grade: 'A+' });
    expect(scoreFindings([f('a', -15), f('b', 5), f('c', 5)])).toEqual({ score: 85, grade: 'A-' });
  });

  it('counts a reflected CORS origin with credentials once when both the preflight and the active test see it', () => {
    const passive = f('headers.cors.reflected-credentials', -50);
    const active = { ...f('active.cors.reflected-credentials', -50), category: 'active' as const };
    expect(scoreFindings([passive, active, f('a', -10)])).toEqual({ score: 40, grade: 'D+' });
    expect(scoreFindings([active, f('a', -10)])).toEqual({ score: 40, grade: 'D+' });
  });

  it('has no maximum and never goes below 0', () => {
    expect(scoreFindings([f('a', 5), f('b', 5)]).score).toBe(110);
    expect(scoreFindings([f('a', -50), f('b', -50), f('c', -40)])).toEqual({ score: 0, grade: 'F' });
  });

  it('follows the HTTP Observatory grade chart at every boundary', () => {
    const chart: [number, string][] = [
      [100, 'A+'],
      [99, 'A'],
      [90, 'A'],
      [89, 'A-'],
      [85, 'A-'],
      [84, 'B+'],
      [80, 'B+'],
      [79, 'B'],
      [70, 'B'],
      [69, 'B-'],
      [65, 'B-'],
      [64, 'C+'],
      [60, 'C+'],
      [59, 'C'],
      [50, 'C'],
      [49, 'C-'],
      [45, 'C-'],
      [44, 'D+'],
      [40, 'D+'],
      [39, 'D'],
      [30, 'D'],
      [29, 'D-'],
      [20, 'D-'],
      [19, 'F'],
      [0, 'F'],
    ];
    for (const [score, grade] of chart) expect([score, gradeOf(score)]).toEqual([score, grade]);
  });
});

describe('the report', () => {
  it('lists problems new since the previous run and the ones resolved', () => {
    const previous = { run_id: 'r1', findings: [f('gone', -5, false), f('stays', -5, false), f('ok', 0)] };
    const changes = changesSince(previous as never, [
      f('stays', -5, false),
      f('fresh', -10, false),
      f('gone.fixed', 0),
    ]);
    expect(changes).toEqual({ previous_run_id: 'r1', new: ['fresh'], resolved: ['gone'] });
    expect(changesSince(null, [])).toBeNull();
  });

  it('summarizes the grade and the problems by severity', () => {
    expect(summarize('example.com', 75, 'B', [f('a', -25, false), f('b', 0)])).toBe(
      'example.com: grade B (score 75); 1 problems (1 medium), 1 checks passed.',
    );
  });
});
