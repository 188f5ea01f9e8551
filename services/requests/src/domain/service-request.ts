import { normalizeHostname, ok, refuse, type Result } from '@meridian/contracts';
import type { RequestsRefusal } from './refusals.js';

export interface RequestAsked {
  kind: 'pentest' | 'pentest_discussion' | 'consultancy';
  domain?: string | undefined;
  detail?: string | undefined;
}

/**
 * What one request is about. A pentest or its discussion concerns a domain, so it names one; a
 * consultancy names none (portal 2.4: "omitted or empty for consultancy"). The domain is
 * normalised as the analysis domains route does it (lower case, one trailing dot dropped, IDN to
 * punycode), so "ACME-shop.test." and "acme-shop.test" are one request.
 */
export function requestKey(
  asked: RequestAsked,
): Result<{ kind: string; domain: string; detail: string | null }, RequestsRefusal> {
  const named = (asked.domain ?? '').trim();
  if (asked.kind === 'consultancy' && named !== '')
    return refuse(
      'validation_failed',
      'domain: a consultancy request names no domain; leave it out or empty',
    );
  if (asked.kind !== 'consultancy' && named === '')
    return refuse('validation_failed', `domain: a ${asked.kind} request names the domain it concerns`);
  const domain = named === '' ? ok('') : normalizeHostname(named);
  if (!domain.ok) return domain;
  const detail = asked.detail?.trim();
  return ok({ kind: asked.kind, domain: domain.value, detail: detail ? detail : null });
}

/** How many requests naming a domain an account may leave open for the operators at once. */
export interface OpenRequestRules {
  perAccount: number;
  /** An open request asked no more for this long stops counting. */
  liveMs: number;
}

/**
 * Whether one more request naming a domain may be opened: it costs nothing and lands in the
 * operators' queue, so, as unpaid slot holds, an account's open ones are capped. Asking again for
 * one already open only counts it, and a request naming no domain makes one row at most.
 */
export function mayOpenRequest(
  rules: OpenRequestRules,
  request: { domain: string; alreadyOpen: boolean },
  openOfAccount: number,
): Result<true, RequestsRefusal> {
  if (request.domain === '' || request.alreadyOpen || openOfAccount < rules.perAccount) return ok(true);
  return refuse(
    'request_limit',
    `An account has at most ${rules.perAccount} open service requests naming a domain: wait for an operator to review one.`,
  );
}
