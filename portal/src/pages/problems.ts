import type { Problem } from './api.js';
import { dollars } from './money.js';

/**
 * A refusal of the API in a sentence a person understands. The HTTP title ("Unauthorized",
 * "Invalid input") is never shown: the sentence comes from the error category, else from the
 * detail with its atomic units turned into dollars, else from the status.
 */

/** The sentence of a category whose detail speaks to a developer rather than to a person. */
const CATEGORIES: Record<string, string> = {
  unauthorized: 'You are not signed in, or your session has ended: sign in again.',
  invalid_credentials: 'The email address or the password is not right.',
  email_unconfirmed: 'Confirm your email address first: follow the link in the mail we sent you.',
  invalid_code: 'That code is not right, or it has expired: type the current code from your app.',
  challenge_expired: 'The sign-in took too long: sign in again.',
  invalid_token: 'This link is no longer valid: it was used already or it has expired.',
  weak_password: 'Choose a longer password that is harder to guess (at least 12 characters).',
  too_many_keys: 'You have as many API keys as an account may hold: revoke one first.',
  too_many_runs: 'Too many audits are running for you right now: wait for one to finish.',
  too_many_streams: 'Too many live views are open: close one and try again.',
  domain_not_verified: 'Verify the domain first: add its TXT record, then press "Verify now".',
  attestation_required: 'Active testing needs your statement that you may test this domain.',
  authorization_required: 'Authorize active testing of this domain first.',
  hold_limit: 'You already hold as many unpaid bookings as allowed: pay or let one expire first.',
  facilitator_unavailable: 'The payment service is not answering right now: try again in a minute.',
  operator_role_required: 'Only an operator may do this.',
  operator_totp_required: 'Turn on two-factor sign-in first: operators must use it.',
  tier_forbidden: 'Your data plan does not include this: a higher plan does.',
  nickname_taken: 'Someone else has that nickname: choose another.',
  invalid_cursor: 'That page of the list is no longer available: go back to the newest.',
  oidc_refused: 'The sign-in provider did not let you in.',
  provider_unreachable: 'The sign-in provider is not answering right now: try again later.',
};

/** Categories that only restate the status: their detail is for a developer, not a person. */
const GENERIC = new Set(['', 'internal', 'service_unavailable', 'bad_gateway', 'gateway_timeout']);

/** What a status says when the category and the detail say nothing a person can use. */
function statusWords(status: number, retryAfter?: number): string {
  if (status === 0) return 'The server could not be reached: check your connection and try again.';
  if (status === 401) return CATEGORIES.unauthorized!;
  if (status === 402) return 'This needs a payment first.';
  if (status === 403) return 'You are not allowed to do this.';
  if (status === 404) return 'We could not find that: it may have been removed, or the address is wrong.';
  if (status === 409) return 'This clashes with something done just before: reload the page and try again.';
  if (status === 410) return 'This is no longer available.';
  if (status === 413) return 'What you sent is too large.';
  if (status === 429)
    return `Too many requests at once: wait ${retryAfter ?? 'a few'} seconds and try again.`;
  if (status >= 500) return 'Something went wrong on our side: try again in a minute.';
  return 'That was not accepted: check what you typed and try again.';
}

/** A balance and a price in atomic units: billing's members, or the numbers of its older detail. */
function creditShortfall(p: Problem): { balance?: number; needed?: number } {
  if (typeof p.balance_atomic === 'number' || typeof p.needed_atomic === 'number')
    return { balance: p.balance_atomic, needed: p.needed_atomic };
  const old = /balance is (\d+) atomic units; this needs (\d+)/.exec(p.detail ?? '');
  return old ? { balance: Number(old[1]), needed: Number(old[2]) } : {};
}

function insufficientCredit(p: Problem): string {
  const { balance, needed } = creditShortfall(p);
  const costs = needed === undefined ? '' : `: it costs ${dollars(needed)}`;
  const has = balance === undefined ? '' : ` and your balance is ${dollars(balance)}`;
  return `Your credit does not cover this${costs}${has}. Top up on the Credit page, then try again.`;
}

/** A detail with any atomic amount said in dollars, and without the field paths of a validator. */
function plainDetail(detail: string): string {
  return detail
    .replace(/(\d+) atomic units?/g, (_m, n: string) => dollars(Number(n)))
    .replace(/^body\.|^query\./, '');
}

function validationWords(p: Problem): string {
  const first = p.errors?.[0];
  if (!first) return p.detail ? `Please check what you typed: ${plainDetail(p.detail)}` : statusWords(400);
  const field = first.path.replace(/^(body|query|params)\./, '').replace(/_/g, ' ');
  return `Please check the ${field}: ${first.message}`;
}

/** The sentence shown for a refusal. */
export function problemWords(p: Problem): string {
  const category = p.error_category ?? '';
  if (category === 'insufficient_credit' || p.needed_atomic !== undefined) return insufficientCredit(p);
  if (category === 'validation_failed') return validationWords(p);
  if (category === 'rate_limit' || category === 'rate_limited' || p.status === 429)
    return statusWords(429, p.retry_after);
  const known = CATEGORIES[category];
  if (known) return known;
  if (p.status === 0 || GENERIC.has(category)) return statusWords(p.status);
  return p.detail ? plainDetail(p.detail) : statusWords(p.status);
}

/** Whether topping up the credit is what the person can do about this refusal. */
export const needsCredit = (p: Problem) =>
  p.error_category === 'insufficient_credit' || p.needed_atomic !== undefined;
