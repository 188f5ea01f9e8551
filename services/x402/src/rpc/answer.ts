import type { RefusalProblem } from '@meridian/http-kit';
import type { X402Refusal } from '../domain/refusals.js';

/** A payment refused: a 402 whose category is x402's reason (the gateway answers the challenge again with it). */
const refusedPayment = <R extends X402Refusal>(reason: R) =>
  ({ kind: 'payment_required', category: reason }) as const;

/** Every refusal of x402 as the gateway receives it; the facilitator not reached is a 503. */
export const X402_PROBLEMS = {
  payment_undecodable: refusedPayment('payment_undecodable'),
  unsupported_version: refusedPayment('unsupported_version'),
  requirements_mismatch: refusedPayment('requirements_mismatch'),
  amount_mismatch: refusedPayment('amount_mismatch'),
  recipient_mismatch: refusedPayment('recipient_mismatch'),
  asset_mismatch: refusedPayment('asset_mismatch'),
  network_mismatch: refusedPayment('network_mismatch'),
  fee_payer_mismatch: refusedPayment('fee_payer_mismatch'),
  resource_mismatch: refusedPayment('resource_mismatch'),
  payment_replayed: refusedPayment('payment_replayed'),
  verification_failed: refusedPayment('verification_failed'),
  settlement_failed: refusedPayment('settlement_failed'),
  settlement_pending: refusedPayment('settlement_pending'),
  facilitator_unavailable: {
    kind: 'service_unavailable',
    category: 'facilitator_unavailable',
    retryAfter: 1,
  },
  validation_failed: { kind: 'validation_failed' },
  not_found: { kind: 'not_found' },
} as const satisfies Record<X402Refusal, RefusalProblem>;
