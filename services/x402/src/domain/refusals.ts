import type { X402Reason } from '@meridian/contracts';

/**
 * Every refusal x402 answers the gateway over request/reply: a payment not accepted, for one of
 * x402's reasons (data-api 4.4), the facilitator not reached, or a request it cannot read.
 * rpc/answer.ts gives each its problem.
 */
export type X402Refusal = X402Reason | 'facilitator_unavailable' | 'validation_failed' | 'not_found';
