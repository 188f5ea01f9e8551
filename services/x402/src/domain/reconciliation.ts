/**
 * What to make of a payment left `settling` (a crash between the claim and the settlement) or
 * `pending` (the facilitator answered pending, or not at all), from what the chain and the
 * facilitator say about it now. Pure: the job gathers the observations, this decides.
 */

/** The chain's word: the transaction of this payment landed (and whether it failed), or did not. */
export type ChainSeen =
  | { kind: 'landed'; signature: string; failed: boolean }
  | { kind: 'absent' }
  /** No chain to ask (no SOLANA_RPC_URL, no payer known), or it did not answer. */
  | { kind: 'unknown'; detail: string };

/**
 * The facilitator's word on the payment as kept: for a `settling` one its verification (is the
 * transaction still good, i.e. never sent?); for a `pending` one its settlement asked again, as
 * x402's resource server retries a pending answer.
 */
export type FacilitatorSays =
  | { kind: 'valid' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'settled'; transaction: string; payer: string }
  | { kind: 'refused'; reason: string; transaction: string }
  | { kind: 'unreachable'; detail: string }
  /** Not asked: the chain answered, or the payment as received was not kept. */
  | { kind: 'not_asked' };

export interface Observation {
  state: 'settling' | 'pending';
  chain: ChainSeen;
  facilitator: FacilitatorSays;
  /** Time since the claim. */
  ageMs: number;
}

export type Decision =
  | { action: 'settled'; transaction: string; payer?: string }
  /** Nothing moved and nothing can any more, or the transaction landed failed. */
  | { action: 'failed'; reason: string; transaction: string | null }
  /** Never sent and still good: the claim is given back, so the payer may use it again. */
  | { action: 'release' }
  | { action: 'wait'; reason: string }
  | { action: 'unreconciled'; reason: string };

const PENDING = 'settlement_pending';

/** The decision; an open question older than `giveUpMs` goes to an operator instead of waiting. */
export function reconcile(o: Observation, giveUpMs: number): Decision {
  const decided = decide(o);
  if (decided.action === 'wait' && o.ageMs >= giveUpMs)
    return { action: 'unreconciled', reason: decided.reason };
  return decided;
}

function decide({ state, chain, facilitator }: Observation): Decision {
  if (chain.kind === 'landed')
    return chain.failed
      ? { action: 'failed', reason: 'transaction_failed', transaction: chain.signature }
      : { action: 'settled', transaction: chain.signature };
  if (facilitator.kind === 'settled')
    return { action: 'settled', transaction: facilitator.transaction, payer: facilitator.payer };
  if (facilitator.kind === 'unreachable')
    return { action: 'wait', reason: `facilitator unreachable: ${facilitator.detail}` };
  if (facilitator.kind === 'not_asked')
    return {
      action: 'wait',
      reason: chain.kind === 'unknown' ? `chain unknown: ${chain.detail}` : 'not on chain, payment not kept',
    };
  if (facilitator.kind === 'refused' && facilitator.reason === PENDING)
    return { action: 'wait', reason: 'the facilitator still answers settlement_pending' };
  // Below, the facilitator says the transaction was not sent now. Only the chain can tell whether an
  // earlier attempt landed: without it nothing is given back or closed.
  if (chain.kind === 'unknown') return { action: 'wait', reason: `chain unknown: ${chain.detail}` };
  if (facilitator.kind === 'valid')
    return state === 'settling' ? { action: 'release' } : { action: 'wait', reason: 'pending, still valid' };
  return {
    action: 'failed',
    reason: facilitator.reason,
    transaction: facilitator.kind === 'refused' ? facilitator.transaction || null : null,
  };
}
