import type { Finding, Severity } from '@meridian/contracts';

type Category = Finding['category'];

/** A passed check: shown as a good practice; its modifier is 0 or a bonus. */
export function pass(
  id: string,
  category: Category,
  title: string,
  evidence: string,
  score_modifier = 0,
): Finding {
  return {
    id,
    category,
    title,
    severity: 'info',
    outcome: 'passed',
    passed: true,
    evidence,
    remediation: '',
    score_modifier,
  };
}

/** A problem, with what to do about it and the points it costs. */
export function fail(
  id: string,
  category: Category,
  title: string,
  severity: Severity,
  evidence: string,
  remediation: string,
  score_modifier = 0,
): Finding {
  return {
    id,
    category,
    title,
    severity,
    outcome: 'problem',
    passed: false,
    evidence,
    remediation,
    score_modifier,
  };
}

/**
 * A check that did not run: `reason` says why (in the evidence), `remediation` what would let it
 * run. It is neither a pass nor a problem and moves no points.
 */
export function notRun(
  id: string,
  category: Category,
  title: string,
  reason: string,
  remediation: string,
): Finding {
  return {
    id,
    category,
    title,
    severity: 'info',
    outcome: 'not_run',
    passed: false,
    evidence: reason,
    remediation,
    score_modifier: 0,
  };
}

/** Evidence quoted from the target, cut to a readable length. */
export const quote = (value: string, max = 300): string =>
  value.length > max ? `${value.slice(0, max)}… (${value.length} characters)` : value;
