import {
  SESSION_COOKIE,
  type Caller,
  type KeyVerifyReply,
  type Plan,
  type Problem,
  type SessionVerifyReply,
} from '@meridian/contracts';
import { cookieValue, problem } from '@meridian/http-kit';
import type { RateLimiter, WithinDecision } from '../adapters/rate-limiter.js';
import type { VerifiedCache } from '../adapters/verified-cache.js';
import { bearerChallenge, keyCaller, presentedKey, sessionCaller } from '../domain/credentials.js';
import { gateRefusal } from '../domain/data-route.js';
import {
  accountBucket,
  rateLimitHeaders,
  retiredKeysBucket,
  type BucketPolicy,
  type RateDecision,
} from '../domain/token-bucket.js';
import { addFields, type EdgeCall } from './call.js';
import type { DataCall } from './data-forward.js';

/** Who a data call may go on as: a vouched-for caller, a refusal, or no credential at all. */
export type Admission = { caller: Caller } | { refused: Problem } | { keyless: true };

const KEYLESS: Admission = { keyless: true };

export interface AdmissionOptions {
  keys: VerifiedCache<KeyVerifyReply>;
  /** A signed-in person's session reads data at its account's plan, as a key does (no x402). */
  sessions: VerifiedCache<SessionVerifyReply>;
  limiter: RateLimiter;
  /** The bucket of each plan (data-api-interface 8, or RATE_LIMITS). */
  plans: Record<Plan, BucketPolicy>;
  /** The account-wide bucket of each plan (ACCOUNT_RATE_MULTIPLE times the key's). */
  accountPlans: Record<Plan, BucketPolicy>;
  /** Rejects a string that cannot be a key of ours before any request to identity. */
  keyFormatValid: (key: string) => boolean;
}

/** A refused key: 401 with the bearer challenge (RFC 9110 requires one on every 401). */
export function keyRefused(call: EdgeCall, presented: boolean): Admission {
  call.fields.push('www-authenticate', bearerChallenge(presented));
  return { refused: problem('unauthorized', 'The API key is not valid.') };
}

/** The 429 of a spent budget, naming the limit that refused: the key's own or the account's. */
export function rateRefusal(decision: RateDecision): Problem {
  const wait = decision.retryAfterS;
  const detail = decision.accountWide
    ? `This account's keys and sessions together allow ${decision.limit} requests per minute (ACCOUNT_RATE_MULTIPLE times the plan's per-key limit); retry in ${wait} s, or move to a larger plan.`
    : `This plan allows ${decision.limit} requests per minute; retry in ${wait} s.`;
  return problem('rate_limit', detail, { retryAfter: wait });
}

/**
 * The credential steps of a data call: the key (X-API-Key or a bearer) verified from the cache or
 * by identity, else the session cookie, then the rate limit and the plan gate. A call without a
 * credential, or whose session identity refuses, is keyless: x402 or anonymous (x402-calls.ts).
 */
export class DataAdmission {
  constructor(private readonly options: AdmissionOptions) {}

  async admit(call: DataCall): Promise<Admission> {
    const presented = presentedKey(call.req.headers);
    if (presented.kind === 'none') {
      const session = cookieValue(call.req.headers.cookie, SESSION_COOKIE);
      return session ? this.withSession(call, session) : KEYLESS;
    }
    if (presented.kind === 'malformed') return keyRefused(call, false);
    if (!this.options.keyFormatValid(presented.key)) return keyRefused(call, true);
    const result = await this.options.keys.verify(presented.key, () => call.client);
    if (!result.ok)
      return result.problem.status === 401 ? keyRefused(call, true) : { refused: result.problem };
    const key = result.value;
    return this.limited(call, key.key_id, key.account_id, key.plan, keyCaller(key));
  }

  /**
   * A signed-in session: identity vouches for it, then the account's plan gates and limits it as a
   * key would (its bucket is the account's session bucket). A session identity refuses (expired,
   * revoked) counts as no credential: the caller may still pay per call.
   */
  private async withSession(call: DataCall, token: string): Promise<Admission> {
    const result = await this.options.sessions.verify(token, () => call.client);
    if (!result.ok) return result.problem.status === 401 ? KEYLESS : { refused: result.problem };
    const session = result.value;
    const bucket = `session:${session.account_id}`;
    return this.limited(call, bucket, session.account_id, session.plan, sessionCaller(session));
  }

  /**
   * The key's (or session's) own bucket `bucket` (a new one starts from the account's retired
   * keys), then the account-wide ceiling: a call its own bucket allows also takes a token of the
   * account's, so many keys of one account draw at most ACCOUNT_RATE_MULTIPLE times one key's
   * budget; one round trip on Redis (takeWithin). Rate-limit fields on every answer to a
   * vouched-for caller; a spent budget is 429, a gate above the plan 403.
   */
  private async limited(
    call: DataCall,
    bucket: string,
    accountId: string,
    plan: Plan,
    caller: Caller,
  ): Promise<Admission> {
    const { limiter, plans, accountPlans } = this.options;
    const decision = tighter(
      await limiter.takeWithin(
        bucket,
        plans[plan],
        retiredKeysBucket(accountId),
        accountBucket(accountId),
        accountPlans[plan],
      ),
    );
    addFields(call.fields, rateLimitHeaders(decision));
    if (!decision.allowed) return { refused: rateRefusal(decision) };
    const gate = gateRefusal(plan, call.target);
    if (gate) return { refused: problem('tier_forbidden', gate) };
    return { caller };
  }
}

/** The tighter of the two decisions is the one answered. */
function tighter({ own, account }: WithinDecision): RateDecision {
  return account === undefined || account.allowed ? own : { ...account, accountWide: true };
}
