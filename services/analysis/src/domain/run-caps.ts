import { ok, refuse, type Result } from '@meridian/contracts';
import type { AnalysisRefusal } from './refusals.js';

/** How many runs one account may hold at once, by what they wait for. */
export interface RunCaps {
  /** Runs queued or running, and credit spends in flight (they are queued when billing answers). */
  unfinished: number;
  /** Runs quoted for an on-chain deposit and not yet paid, their quote not lapsed. */
  openQuotes: number;
}

/**
 * Whether one more run paid this way may be commissioned, given what the account holds now: a
 * deposit quote costs nothing until paid, so unpaid quotes are capped on their own, as unpaid
 * consulting holds are; any other run takes a place among the unfinished ones.
 */
export function mayCommission(caps: RunCaps, held: RunCaps, payment: string): Result<true, AnalysisRefusal> {
  if (payment === 'deposit')
    return held.openQuotes >= caps.openQuotes
      ? refuse(
          'quote_limit',
          `An account holds at most ${caps.openQuotes} unpaid deposit quotes at once: pay one, wait for one to lapse, or pay from credit.`,
        )
      : ok(true);
  if (held.unfinished >= caps.unfinished)
    return refuse(
      'too_many_runs',
      `This account has ${caps.unfinished} runs queued or running, the most it may; commission more when one has finished.`,
    );
  return ok(true);
}
