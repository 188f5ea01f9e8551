import { describe, expect, it } from '@jest/globals';
import { refusalTableFaults } from '@meridian/http-kit/testing';
import { ANALYSIS_PROBLEMS } from '../../src/routes/answer.js';

describe("analysis's refusals", () => {
  it('answers each with a status and category the spec allows, and the statuses portal 7 declares', () => {
    const declared = {
      domain_not_verified: 400,
      attestation_required: 400,
      not_found: 404,
      validation_failed: 400,
    };
    expect(refusalTableFaults(ANALYSIS_PROBLEMS, declared)).toEqual([]);
  });
});
