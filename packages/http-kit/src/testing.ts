import { randomUUID } from 'node:crypto';
import { INTERNAL_ASSERTION_HEADER, type Caller } from '@meridian/contracts';
import { assertionKey, signCallerAssertion } from './internal-auth.js';
import { refusalProblem, type RefusalProblem } from './refusal.js';

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

/**
 * An operator as operator routes let one in: a signed-in session of an account holding the role,
 * TOTP active, that passed its second factor just now (`more` changes any of it).
 */
export function operatorCaller(accountId: string, more: Partial<Caller> = {}): Partial<Caller> {
  return {
    account_id: accountId,
    auth: 'session',
    session_id: randomUUID(),
    plan: 'free',
    role: 'operator',
    totp_active: true,
    second_factor_at: new Date().toISOString(),
    ...more,
  };
}

/**
 * Headers of an operator's session as the gateway sends them: operatorCaller's caller, signed.
 * The one place tests build an operator's headers, so that a new requirement of operator routes
 * changes only operatorCaller.
 */
export async function operatorHeaders(
  accountId: string,
  caller: Partial<Caller> = {},
): Promise<Record<string, string>> {
  return callerHeaders({ ...operatorCaller(accountId), ...caller });
}

/**
 * The error table of the data API (data-api 7): the status of each error_category it names. The
 * portal leaves its categories "not shown" (portal 7), so another category is a service's own name.
 */
const SPEC_ERROR_CATEGORIES: Readonly<Record<string, number>> = {
  unauthorized: 401,
  tier_forbidden: 403,
  not_yet_available: 404,
  rate_limit: 429,
};

/**
 * What the spec does not allow in a service's table of refusals, one sentence per fault (none:
 * `[]`). Each code is answered through refusalProblem as a client would get it: a 4xx or 5xx
 * status; a category of the spec's table only with its status; retryable false on 401, true and
 * a retry_after on 429 (data-api 7); and for each code in `declared`, the status the spec declares
 * for its route (portal 7, data-api 4.4), which the compiler holds to codes of the table.
 */
export function refusalTableFaults<C extends string>(
  problems: Readonly<Record<C, RefusalProblem>>,
  declared: Readonly<Partial<Record<NoInfer<C>, number>>>,
): string[] {
  const faults: string[] = [];
  for (const code of Object.keys(problems) as C[]) {
    const body = refusalProblem(problems, { ok: false, code, detail: 'why' });
    const says = `${code} answers ${body.status} ${body.error_category}`;
    if (body.status < 400 || body.status > 599) faults.push(`${says}: not a client or server error`);
    const specStatus = SPEC_ERROR_CATEGORIES[body.error_category];
    if (specStatus !== undefined && specStatus !== body.status)
      faults.push(`${says}: the spec answers ${body.error_category} with ${specStatus}`);
    if (body.status === 401 && body.retryable) faults.push(`${says}: a 401 is not retryable`);
    if (body.status === 429 && !(body.retryable && body.retry_after !== undefined))
      faults.push(`${says}: a 429 is retryable and says retry_after`);
    const status = declared[code];
    if (status !== undefined && status !== body.status) faults.push(`${says}: the spec declares ${status}`);
  }
  return faults;
}
