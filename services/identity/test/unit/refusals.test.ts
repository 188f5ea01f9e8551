import { describe, expect, it } from '@jest/globals';
import { refusalTableFaults } from '@meridian/http-kit/testing';
import { IDENTITY_PROBLEMS } from '../../src/routes/answer.js';

describe("identity's refusals", () => {
  it('answers each with a status and category the spec allows, and 401 for no valid session', () => {
    expect(refusalTableFaults(IDENTITY_PROBLEMS, { unauthorized: 401 })).toEqual([]);
  });
});
