import { describe, expect, it } from '@jest/globals';
import { refusalTableFaults } from '@meridian/http-kit/testing';
import { BILLING_PROBLEMS } from '../../src/routes/answer.js';

describe("billing's refusals", () => {
  it('answers each with a status and category the spec allows, and the statuses portal 7 declares', () => {
    const declared = { insufficient_credit: 402, invalid_cursor: 400, validation_failed: 400 };
    expect(refusalTableFaults(BILLING_PROBLEMS, declared)).toEqual([]);
  });
});
