import { expect } from '@jest/globals';
import type request from 'supertest';
import type { Harness } from '../harness.js';
import { anonymous } from '../flows.js';
import { postFrom } from './clients.js';

export const ATTACKER_PASSWORD = 'squatter-chosen-passphrase-31';
export const VICTIM_PASSWORD = 'harbour-lantern-quince-58';

let addresses = 0;
/** A client address of its own for each caller, so the sign-up quota of one never meets another's. */
export const freshAddress = () => {
  addresses += 1;
  return `10.77.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

/** The device cookie an answer sets, as a browser sends it back (`name=value`). */
export function deviceCookieOf(res: request.Response): string {
  const cookies = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  const set = cookies.find((c) => c.startsWith('meridian_device='));
  if (!set) throw new Error('no device cookie was set');
  expect(set).toMatch(/HttpOnly/);
  expect(set).toMatch(/Path=\/auth/);
  return set.split(';')[0]!;
}

/** The calls an attacker and a victim make; `harness` answers the service the test file started. */
export function abuseCalls(harness: () => Harness) {
  const post = async (path: string, body: unknown, ip: string, headers?: Record<string, string>) =>
    postFrom(harness(), path, body, ip, headers);

  async function signUp(email: string, password: string, ip = freshAddress()) {
    const res = await post('/auth/signup', { email, password }, ip);
    expect(res.status).toBe(202);
    return res;
  }

  async function logIn(email: string, password: string, ip = freshAddress(), cookie?: string) {
    const headers = { ...(await anonymous()), ...(cookie ? { cookie } : {}) };
    return post('/auth/login', { email, password }, ip, headers);
  }

  const accountOf = (email: string) =>
    harness()
      .deps.db.selectFrom('accounts')
      .select(['id', 'totp_state', 'password_proven_at'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();

  return { post, signUp, logIn, accountOf };
}
