import { INTERNAL_ASSERTION_HEADER, type Caller } from '@meridian/contracts';
import { assertionKey, signCallerAssertion } from './internal-auth.js';

/** A fixed secret for tests that talk to a service without the gateway in front. */
export const TEST_INTERNAL_AUTH_SECRET = 'test-internal-auth-secret-0123456789abcdef';
export const testAssertionKey = assertionKey(TEST_INTERNAL_AUTH_SECRET);

/** Headers that make a supertest request look like it came through the gateway for this caller. */
export async function callerHeaders(caller: Partial<Caller> = {}): Promise<Record<string, string>> {
  const full: Caller = {
    account_id: null,
    plan: null,
    auth: 'anonymous',
    key_id: null,
    session_id: null,
    ...caller,
  };
  return { [INTERNAL_ASSERTION_HEADER]: await signCallerAssertion(full, testAssertionKey) };
}
