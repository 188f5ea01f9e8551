import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { RPC, type UnreconciledListReply } from '@meridian/contracts';
import { envelope, HttpProblem, idempotencyKeyOf, operatorAccountOf, parseInput } from '@meridian/http-kit';
import { unmatchedDeposits } from '../db/repositories/deposits.js';
import type { BillingDeps } from '../deps.js';
import { postByOperator, refundByOperator, settleDeposit } from '../flows/operator-actions.js';
import { consoleOperator } from '../flows/operator-by-email.js';
import { valueOf } from './answer.js';

const method = "Billing's credit ledger and deposits, changed by an operator.";
const reason = z.string().trim().min(3).max(500);
const amount = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const creditBody = z.object({ account_id: z.uuid(), amount_atomic: amount, reason }).strict();
const refundBody = z
  .object({
    account_id: z.uuid(),
    order_id: z.string().min(1).max(100),
    amount_atomic: amount.optional(),
    reason,
  })
  .strict();
const assignBody = z.object({ account_id: z.uuid(), reason }).strict();
const returnBody = z.object({ reason }).strict();
const signaturePath = z.object({ signature: z.string().regex(/^[\x21-\x7e]{1,100}$/, 'printable ASCII') });
const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).strict();

/**
 * The operator console's credit and deposit actions, each with a reason, through the ledger's own
 * rules: a session of an operator with TOTP active (operatorAccountOf); every action is logged in
 * `operator_actions` in the transaction of its change, and names an account billing knows. An `Idempotency-Key` makes a retried grant, revocation or refund post once.
 */
export function operatorRoutes(deps: BillingDeps): Router {
  const router = Router();
  router.get('/v1/operator/billing/deposits', async (req, res) => {
    operatorAccountOf(req);
    const { limit } = parseInput(listQuery, req.query, 'query');
    const rows = (await unmatchedDeposits(deps.db, limit)).map((d) => ({
      tx_signature: d.tx_signature,
      amount_atomic: d.amount_atomic,
      memo: d.memo,
      recorded_at: d.recorded_at.toISOString(),
    }));
    res.json(envelope(rows, { returned: rows.length }, { method }));
  });
  for (const kind of ['grant', 'revoke'] as const)
    router.post(`/v1/operator/billing/${kind}`, async (req, res) => {
      const operator = await consoleOperator(deps, operatorAccountOf(req));
      const body = parseInput(creditBody, req.body ?? {});
      const key = idempotencyKeyOf(req.get('idempotency-key')) ?? randomUUID();
      const { entry, balance_atomic, replayed } = valueOf(
        await postByOperator(deps, operator, { kind, ...body, key }),
      );
      res.status(replayed ? 200 : 201).json(envelope({ entry, balance_atomic, replayed }, {}, { method }));
    });
  router.post('/v1/operator/billing/refund', async (req, res) => {
    const operator = await consoleOperator(deps, operatorAccountOf(req));
    const body = parseInput(refundBody, req.body ?? {});
    const key = idempotencyKeyOf(req.get('idempotency-key')) ?? randomUUID();
    const refunded = valueOf(await refundByOperator(deps, operator, { ...body, key }));
    res.status(refunded.replayed ? 200 : 201).json(envelope(refunded, {}, { method }));
  });
  router.post('/v1/operator/billing/deposits/:signature/assign', async (req, res) => {
    const operator = await consoleOperator(deps, operatorAccountOf(req));
    const { signature } = parseInput(signaturePath, req.params, 'path');
    const body = parseInput(assignBody, req.body ?? {});
    const settled = valueOf(
      await settleDeposit(deps, operator, { kind: 'assign', tx_signature: signature, ...body }),
    );
    res.json(envelope(settled, {}, { method }));
  });
  router.post('/v1/operator/billing/deposits/:signature/return', async (req, res) => {
    const operator = await consoleOperator(deps, operatorAccountOf(req));
    const { signature } = parseInput(signaturePath, req.params, 'path');
    const body = parseInput(returnBody, req.body ?? {});
    const settled = valueOf(
      await settleDeposit(deps, operator, { kind: 'return', tx_signature: signature, ...body }),
    );
    res.json(envelope(settled, {}, { method }));
  });
  router.get('/v1/operator/billing/x402-unreconciled', async (req, res) => {
    operatorAccountOf(req);
    const { limit } = parseInput(listQuery, req.query, 'query');
    // x402 owns the payments; its reconciliation leaves here what it could not close.
    const listed = await deps.bus.request<UnreconciledListReply>(RPC.x402PaymentsUnreconciledList, { limit });
    if (!listed.ok) throw new HttpProblem(listed.problem);
    const rows = listed.data.payments;
    res.json(
      envelope(
        rows,
        { returned: rows.length },
        {
          method:
            'x402 payments its reconciliation job could not close, oldest first (rpc.x402.payments.unreconciled.list.v1).',
        },
      ),
    );
  });
  return router;
}
