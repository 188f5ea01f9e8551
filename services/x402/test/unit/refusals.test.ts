import { describe, expect, it } from '@jest/globals';
import { X402_REASONS } from '@meridian/contracts';
import { refusalProblem } from '@meridian/http-kit';
import { refusalTableFaults } from '@meridian/http-kit/testing';
import { X402_PROBLEMS } from '../../src/rpc/answer.js';

describe("x402's refusals", () => {
  it('answers each with a status and category the spec allows, and a refused payment with 402', () => {
    const declared = Object.fromEntries(X402_REASONS.map((reason) => [reason, 402]));
    expect(refusalTableFaults(X402_PROBLEMS, declared)).toEqual([]);
  });

  it("names x402's reason as the category of a refused payment, which the gateway's challenge repeats", () => {
    for (const reason of X402_REASONS) {
      const body = refusalProblem(X402_PROBLEMS, { ok: false, code: reason, detail: 'why' });
      expect([body.status, body.error_category]).toEqual([402, reason]);
    }
  });
});
