import { describe, expect, it } from '@jest/globals';
import { needsUserinfo, providerEmail } from '../../src/domain/provider-email.js';

describe('provider email', () => {
  it('asks userinfo unless the ID token says both the address and whether it is verified', () => {
    expect(needsUserinfo({ email: 'a@x.io', email_verified: true })).toBe(false);
    expect(needsUserinfo({ email: 'a@x.io', email_verified: false })).toBe(false);
    expect(needsUserinfo({ email: 'a@x.io' })).toBe(true);
    expect(needsUserinfo({ email_verified: true })).toBe(true);
    expect(needsUserinfo({})).toBe(true);
  });

  it('takes the ID token alone when it says everything', () => {
    expect(providerEmail({ email: ' A@X.io ', email_verified: true })).toEqual({
      email: 'a@x.io',
      verified: true,
    });
    expect(providerEmail({ email: 'a@x.io', email_verified: 'true' })).toEqual({
      email: 'a@x.io',
      verified: false,
    });
  });

  it("completes the ID token's address with userinfo's email_verified", () => {
    expect(providerEmail({ email: 'a@x.io' }, { email_verified: true })).toEqual({
      email: 'a@x.io',
      verified: true,
    });
    expect(providerEmail({ email: 'a@x.io' }, { email: 'A@x.io', email_verified: true })).toEqual({
      email: 'a@x.io',
      verified: true,
    });
    expect(providerEmail({ email: 'a@x.io' }, { email_verified: false })).toEqual({
      email: 'a@x.io',
      verified: false,
    });
    expect(providerEmail({ email: 'a@x.io' }, {})).toEqual({ email: 'a@x.io', verified: false });
  });

  it("takes userinfo's address with its own verification, never the ID token's for another address", () => {
    expect(providerEmail({}, { email: 'b@x.io', email_verified: true })).toEqual({
      email: 'b@x.io',
      verified: true,
    });
    expect(providerEmail({ email: 'a@x.io', email_verified: true }, { email: 'b@x.io' })).toEqual({
      email: 'b@x.io',
      verified: false,
    });
    expect(providerEmail({ email: 'a@x.io', email_verified: true }, { email: 'a@x.io' })).toEqual({
      email: 'a@x.io',
      verified: true,
    });
    expect(providerEmail({ email_verified: true }, {})).toEqual({ email: undefined, verified: false });
  });
});
