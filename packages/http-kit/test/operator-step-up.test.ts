import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import type { Caller } from '@meridian/contracts';
import { HttpProblem, operatorAccountOf } from '../src/index.js';
import { operatorCaller } from '../src/testing.js';

const NOW = Date.parse('2026-12-02T02:00:00.000Z');
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();
const requestOf = (caller: Partial<Caller>) => ({ caller }) as unknown as Request;

/** What operatorAccountOf answers: the account, or the error_category of its 401/403. */
function outcome(caller: Partial<Caller>): string {
  try {
    return operatorAccountOf(requestOf(caller), NOW);
  } catch (err) {
    if (!(err instanceof HttpProblem)) throw err;
    return `${err.body.status} ${err.body.error_category}`;
  }
}

describe('operator routes want a recent second factor (step-up)', () => {
  it('lets in an operator whose session passed TOTP within 15 minutes', () => {
    expect(outcome(operatorCaller('op', { second_factor_at: minutesAgo(14) }))).toBe('op');
  });

  it('refuses a password-only session of an operator with TOTP active: step_up_required', () => {
    expect(outcome(operatorCaller('op', { second_factor_at: null }))).toBe('403 step_up_required');
    expect(outcome(operatorCaller('op', { second_factor_at: undefined }))).toBe('403 step_up_required');
  });

  it('refuses a second factor passed more than 15 minutes ago, or claimed in the future', () => {
    expect(outcome(operatorCaller('op', { second_factor_at: minutesAgo(16) }))).toBe('403 step_up_required');
    expect(outcome(operatorCaller('op', { second_factor_at: minutesAgo(-10) }))).toBe('403 step_up_required');
  });

  it('says where to step up', () => {
    expect(() => operatorAccountOf(requestOf(operatorCaller('op', { second_factor_at: null })), NOW)).toThrow(
      /confirm with a current code at POST \/v1\/account\/step-up/,
    );
  });

  it('still refuses the role and TOTP first', () => {
    expect(outcome(operatorCaller('op', { role: undefined }))).toBe('403 operator_role_required');
    expect(outcome(operatorCaller('op', { totp_active: false }))).toBe('403 operator_totp_required');
    expect(outcome(operatorCaller('op', { auth: 'api_key' }))).toBe('401 unauthorized');
  });
});
