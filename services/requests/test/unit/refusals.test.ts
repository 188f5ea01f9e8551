import { describe, expect, it } from '@jest/globals';
import { refusalTableFaults } from '@meridian/http-kit/testing';
import { REQUESTS_PROBLEMS } from '../../src/routes/answer.js';

describe("requests's refusals", () => {
  it('answers each with a status and category the spec allows, and 400 for a malformed request', () => {
    expect(refusalTableFaults(REQUESTS_PROBLEMS, { validation_failed: 400 })).toEqual([]);
  });
});
