import {
  ok,
  refuse,
  type PaymentCallRequest,
  type PaymentSettleReply,
  type Result,
  type SettleReceipt,
} from '@meridian/contracts';
import type { SettleOutcome } from '../adapters/facilitator.js';
import { claimPayment, markUnsettled, releasePayment } from '../db/repositories/payments.js';
import type { X402Deps } from '../deps.js';
import { recordSettlement } from './record-settlement.js';
import { checkPayment, type PaymentProblem } from './verify-payment.js';

const PENDING = 'settlement_pending';

const isRetryablePending = (o: SettleOutcome) =>
  o.kind === 'refused' && o.receipt.errorReason === PENDING && o.receipt.transaction !== '';

/**
 * rpc.x402.payment.settle.v1, after the data answer was produced (below 400). The payment is
 * claimed first (its row in x402.payments: one claim per transaction message hash across every
 * replica), then settled by the facilitator; a `settlement_pending` answer with a transaction is
 * asked once more with the same payload, as x402's resource server does. Settled: the row, the
 * payer, amount, resource, signature and time, and the event, in one transaction.
 *
 * Not settled: with no transaction sent (a refusal before broadcast, or the facilitator not
 * reached) the claim is given back, so the same payment may be tried again; otherwise the row
 * stays (`failed`, or `pending` when the outcome is unknown) and the payment cannot be reused.
 */
export async function settlePayment(
  deps: Pick<X402Deps, 'db' | 'facilitator' | 'payments' | 'logger'>,
  request: PaymentCallRequest,
  now: () => Date = () => new Date(),
): Promise<Result<PaymentSettleReply, PaymentProblem>> {
  const checked = await checkPayment(request);
  if (!checked.ok) return checked;
  const { payload, paymentId } = checked.value;
  const { requirements } = request;
  const claimed = await claimPayment(deps.db, {
    payment_id: paymentId,
    payer: null,
    amount_atomic: Number(requirements.amount),
    asset: requirements.asset,
    network: requirements.network,
    pay_to: requirements.payTo,
    resource: request.resource,
    created_at: now(),
    // Kept until the outcome is known: what reconciliation needs after a crash or a pending answer.
    payload: request.header,
  });
  if (!claimed) {
    deps.payments.settlements.inc({ outcome: 'refused', reason: 'payment_replayed' });
    return refuse('payment_replayed', 'This payment was already used; sign a new one.');
  }
  let outcome = await deps.facilitator.settle(payload, requirements);
  if (isRetryablePending(outcome)) outcome = await deps.facilitator.settle(payload, requirements);
  const reply = (receipt: SettleReceipt) => ok({ payment_id: paymentId, receipt });
  switch (outcome.kind) {
    case 'settled': {
      const settledAt = now();
      const payer = outcome.receipt.payer ?? '';
      await recordSettlement(
        deps.db,
        {
          payment_id: paymentId,
          amount_atomic: Number(requirements.amount),
          asset: requirements.asset,
          network: requirements.network,
          pay_to: requirements.payTo,
          resource: request.resource,
        },
        { payer, transaction: outcome.receipt.transaction, settled_at: settledAt },
      );
      deps.payments.settlements.inc({ outcome: 'settled', reason: 'none' });
      return reply(outcome.receipt);
    }
    case 'refused': {
      const reason = outcome.receipt.errorReason ?? 'settlement_failed';
      const pending = reason === PENDING;
      if (outcome.receipt.transaction === '' && !pending) await releasePayment(deps.db, paymentId);
      else
        await markUnsettled(deps.db, paymentId, pending ? 'pending' : 'failed', {
          transaction: outcome.receipt.transaction || null,
          error_reason: reason,
        });
      deps.payments.settlements.inc({ outcome: pending ? 'pending' : 'refused', reason });
      return reply({ ...outcome.receipt, errorReason: reason });
    }
    case 'unknown': {
      deps.logger.warn({ payment_id: paymentId, detail: outcome.detail }, 'settlement outcome unknown');
      await markUnsettled(deps.db, paymentId, 'pending', { transaction: null, error_reason: PENDING });
      deps.payments.settlements.inc({ outcome: 'pending', reason: 'facilitator_timeout' });
      return reply({ success: false, transaction: '', network: requirements.network, errorReason: PENDING });
    }
    case 'unavailable':
      await releasePayment(deps.db, paymentId);
      deps.payments.settlements.inc({ outcome: 'unavailable', reason: 'facilitator_unavailable' });
      return refuse('facilitator_unavailable', 'The payment facilitator is unavailable; try again shortly.');
  }
}
