import { ok, type Result, type UnreconciledListReply } from '@meridian/contracts';
import type { SettleOutcome, VerifyOutcome } from '../adapters/facilitator.js';
import {
  markChecked,
  markUnsettled,
  openPayments,
  releasePayment,
  unreconciledPayments,
  type OpenPayment,
} from '../db/repositories/payments.js';
import type { X402Deps } from '../deps.js';
import { reconcile, type ChainSeen, type Decision, type FacilitatorSays } from '../domain/reconciliation.js';
import { decodePayment, type PaymentPayload } from '../domain/requirements.js';
import { recordSettlement } from './record-settlement.js';

type Deps = Pick<X402Deps, 'db' | 'facilitator' | 'chain' | 'config' | 'logger' | 'payments'>;

const svm = () => import('@x402/svm');

/** The payment as kept at its claim and its payer (the token owner who signed), when they can be read. */
async function keptPayment(row: OpenPayment): Promise<{ payload?: PaymentPayload; payer?: string }> {
  const decoded = row.payload ? decodePayment(row.payload) : undefined;
  if (!decoded?.ok) return row.payer ? { payer: row.payer } : {};
  const { decodeTransactionFromPayload, getTokenPayerFromTransaction } = await svm();
  let payer = row.payer ?? '';
  try {
    payer ||= getTokenPayerFromTransaction(decodeTransactionFromPayload(decoded.value.payload));
  } catch {
    // a kept payment always decoded at its claim; without a payer the chain is not asked
  }
  return { payload: decoded.value, ...(payer ? { payer } : {}) };
}

async function askChain(deps: Deps, row: OpenPayment, payer: string | undefined): Promise<ChainSeen> {
  if (!deps.chain) return { kind: 'unknown', detail: 'no SOLANA_RPC_URL' };
  if (!payer) return { kind: 'unknown', detail: 'no payer known' };
  try {
    const landed = await deps.chain.landed(payer, row.payment_id);
    return landed ? { kind: 'landed', ...landed } : { kind: 'absent' };
  } catch (err) {
    return { kind: 'unknown', detail: err instanceof Error ? err.message.split(': ')[0]! : 'no answer' };
  }
}

const fromVerify = (v: VerifyOutcome): FacilitatorSays =>
  v.kind === 'valid'
    ? { kind: 'valid' }
    : v.kind === 'invalid'
      ? { kind: 'invalid', reason: v.reason }
      : { kind: 'unreachable', detail: v.detail };

const fromSettle = (s: SettleOutcome): FacilitatorSays => {
  if (s.kind === 'settled')
    return { kind: 'settled', transaction: s.receipt.transaction, payer: s.receipt.payer ?? '' };
  if (s.kind === 'refused')
    return {
      kind: 'refused',
      reason: s.receipt.errorReason ?? 'settlement_failed',
      transaction: s.receipt.transaction,
    };
  return { kind: 'unreachable', detail: s.detail };
};

/**
 * A `settling` payment is only verified again (never settled: its call may not have been
 * answered), a `pending` one is settled again with the identical payload, as x402's resource
 * server retries a pending answer.
 */
async function askFacilitator(
  deps: Deps,
  row: OpenPayment,
  payload?: PaymentPayload,
): Promise<FacilitatorSays> {
  if (!payload || (row.state !== 'settling' && row.state !== 'pending')) return { kind: 'not_asked' };
  return row.state === 'settling'
    ? fromVerify(await deps.facilitator.verify(payload, payload.accepted))
    : fromSettle(await deps.facilitator.settle(payload, payload.accepted));
}

async function apply(deps: Deps, row: OpenPayment, decision: Decision, payer: string, now: Date) {
  switch (decision.action) {
    case 'settled':
      await recordSettlement(deps.db, row, {
        payer: decision.payer || payer,
        transaction: decision.transaction,
        settled_at: now,
      });
      return;
    case 'failed':
      return markUnsettled(deps.db, row.payment_id, 'failed', {
        transaction: decision.transaction,
        error_reason: decision.reason,
      });
    case 'release':
      return releasePayment(deps.db, row.payment_id);
    case 'unreconciled':
      await markUnsettled(deps.db, row.payment_id, 'unreconciled', {
        transaction: row.transaction,
        error_reason: decision.reason,
      });
      return markChecked(deps.db, row.payment_id, now);
    case 'wait':
      return markChecked(deps.db, row.payment_id, now);
  }
}

/** One payment: the chain first (did it land?), then the facilitator, then the decision applied. */
async function reconcileOne(deps: Deps, row: OpenPayment, now: Date): Promise<Decision> {
  const { payload, payer } = await keptPayment(row);
  const chain = await askChain(deps, row, payer);
  const facilitator =
    chain.kind === 'landed' ? ({ kind: 'not_asked' } as const) : await askFacilitator(deps, row, payload);
  const decision = reconcile(
    {
      state: row.state as 'settling' | 'pending',
      chain,
      facilitator,
      ageMs: now.getTime() - row.created_at.getTime(),
    },
    deps.config.RECONCILE_GIVE_UP_MS,
  );
  await apply(deps, row, decision, payer ?? '', now);
  deps.payments.reconciliations.inc({ action: decision.action });
  const level = decision.action === 'wait' ? 'debug' : 'info';
  deps.logger[level]({ payment_id: row.payment_id, state: row.state, decision }, 'payment reconciled');
  return decision;
}

/**
 * One pass of reconciliation: the payments left `settling` or `pending` longer than
 * RECONCILE_AFTER_MS, each looked at once per RECONCILE_EVERY_MS. Every write is conditional on
 * the payment being still open, so replicas that reconcile side by side settle and announce once.
 */
export async function reconcilePayments(deps: Deps, now = new Date(), limit = 50): Promise<Decision[]> {
  const { RECONCILE_AFTER_MS, RECONCILE_EVERY_MS } = deps.config;
  const rows = await openPayments(
    deps.db,
    new Date(now.getTime() - RECONCILE_AFTER_MS),
    new Date(now.getTime() - RECONCILE_EVERY_MS),
    limit,
  );
  const decisions: Decision[] = [];
  for (const row of rows) decisions.push(await reconcileOne(deps, row, now));
  return decisions;
}

/** rpc.x402.payments.unreconciled.list.v1: what reconciliation left for an operator, oldest first. */
export async function listUnreconciled(
  deps: Pick<X402Deps, 'db'>,
  { limit }: { limit: number },
): Promise<Result<UnreconciledListReply, never>> {
  const rows = await unreconciledPayments(deps.db, limit);
  return ok({
    payments: rows.map((r) => ({
      payment_id: r.payment_id,
      payer: r.payer,
      amount_atomic: r.amount_atomic,
      asset: r.asset,
      network: r.network,
      pay_to: r.pay_to,
      resource: r.resource,
      transaction: r.transaction,
      reason: r.error_reason,
      created_at: r.created_at.toISOString(),
      checked_at: r.checked_at?.toISOString() ?? null,
    })),
  });
}
