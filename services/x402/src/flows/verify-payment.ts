import {
  ok,
  refuse,
  type PaymentCallRequest,
  type PaymentVerifyReply,
  type Result,
  type X402Reason,
} from '@meridian/contracts';
import { findPayment } from '../db/repositories/payments.js';
import {
  decodePayment,
  matchRequirements,
  matchResource,
  type PaymentPayload,
} from '../domain/requirements.js';
import type { X402Deps } from '../deps.js';

export type PaymentProblem = 'facilitator_unavailable' | X402Reason;

/** A payment decoded, matched against our requirements, and named by its transaction message hash. */
export interface CheckedPayment {
  payload: PaymentPayload;
  paymentId: string;
}

/**
 * @x402/svm and the Solana codecs under it (~9 MB resident), loaded at the first payment checked,
 * not at start, to keep it out of idle memory; every later call finds the module already loaded.
 */
const svm = () => import('@x402/svm');

/** Decode, match and name a payment; the same steps before verification and before settlement. */
export async function checkPayment(
  request: PaymentCallRequest,
): Promise<Result<CheckedPayment, PaymentProblem>> {
  const decoded = decodePayment(request.header);
  if (!decoded.ok) return decoded;
  const mismatch =
    matchRequirements(decoded.value.accepted, request.requirements) ??
    matchResource(decoded.value.resource, request.resource);
  if (mismatch) return mismatch;
  const { decodeTransactionFromPayload, transactionMessageHash } = await svm();
  let paymentId: string;
  try {
    paymentId = transactionMessageHash(
      decodeTransactionFromPayload({ transaction: decoded.value.payload.transaction }),
    );
  } catch {
    return refuse('payment_undecodable', 'The payment transaction is not a Solana transaction.');
  }
  return ok({ payload: decoded.value, paymentId });
}

/**
 * rpc.x402.payment.verify.v1: decode, match our requirements, refuse a payment already claimed
 * (by any replica), then the facilitator's verification. Writes nothing: a call whose data answer
 * fails is not charged, and the same payment may buy the next one.
 */
export async function verifyPayment(
  deps: Pick<X402Deps, 'db' | 'facilitator' | 'payments'>,
  request: PaymentCallRequest,
): Promise<Result<PaymentVerifyReply, PaymentProblem>> {
  const counted = (result: Result<PaymentVerifyReply, PaymentProblem>) => {
    deps.payments.verifications.inc(
      result.ok
        ? { outcome: 'valid', reason: 'none' }
        : {
            outcome: result.code === 'facilitator_unavailable' ? 'unavailable' : 'invalid',
            reason: result.code,
          },
    );
    return result;
  };
  const checked = await checkPayment(request);
  if (!checked.ok) return counted(checked);
  const { payload, paymentId } = checked.value;
  // The replay read and the facilitator's verification run side by side: a payment seen before is
  // refused whatever the facilitator says (a replay costs one wasted verification, a new payment no wait).
  const [seen, verdict] = await Promise.all([
    findPayment(deps.db, paymentId),
    deps.facilitator.verify(payload, request.requirements),
  ]);
  if (seen) return counted(refuse('payment_replayed', 'This payment was already used; sign a new one.'));
  if (verdict.kind === 'unavailable')
    return counted(
      refuse('facilitator_unavailable', 'The payment facilitator is unavailable; try again shortly.'),
    );
  if (verdict.kind === 'invalid') {
    deps.payments.verifications.inc({ outcome: 'invalid', reason: verdict.reason });
    return refuse(
      'verification_failed',
      `The facilitator refused the payment: ${verdict.reason}${verdict.message ? ` (${verdict.message})` : ''}.`,
    );
  }
  return counted(ok({ payment_id: paymentId, payer: verdict.payer }));
}
