import type { NextFunction, Request, Response } from 'express';
import { INTERNAL_ASSERTION_HEADER, type Caller } from '@meridian/contracts';
import { ASSERTION_TTL_S, signCallerAssertion } from '@meridian/http-kit';
import { outgoingTraceHeaders } from '@meridian/observability';

export const ANONYMOUS: Caller = {
  account_id: null,
  plan: null,
  auth: 'anonymous',
  key_id: null,
  session_id: null,
};

/**
 * Signs the caller the edge verified into the header services trust. Tokens are reused for half
 * their lifetime, so the signature is paid once per caller every 30 s, not once per request; a
 * cached token is returned synchronously so the data hot path pays no promise for it.
 */
export class AssertionSigner {
  private readonly cache = new Map<string, { token: string; renewAt: number }>();

  constructor(private readonly key: Uint8Array) {}

  tokenFor(caller: Caller, now = Date.now()): string | Promise<string> {
    const cacheKey = `${caller.auth}:${caller.account_id}:${caller.plan}:${caller.key_id}:${caller.session_id}:${caller.role}:${caller.totp_active}:${caller.second_factor_at}`;
    const entry = this.cache.get(cacheKey);
    if (entry && entry.renewAt > now) return entry.token;
    return signCallerAssertion(caller, this.key, now).then((token) => {
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(cacheKey, { token, renewAt: now + (ASSERTION_TTL_S * 1000) / 2 });
      return token;
    });
  }
}

/**
 * Express step: whatever a client sent under the assertion header is dropped, then replaced; the
 * gateway's request id and span go along, so the service's log lines join the gateway's.
 */
export function callerAssertion(signer: AssertionSigner) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    delete req.headers[INTERNAL_ASSERTION_HEADER];
    const caller: Caller = (res.locals.caller as Caller | undefined) ?? ANONYMOUS;
    Object.assign(req.headers, outgoingTraceHeaders());
    req.headers[INTERNAL_ASSERTION_HEADER] = await signer.tokenFor(caller);
    next();
  };
}
