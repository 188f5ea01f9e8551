import { applyOnce, type ConsumerSpec } from '@meridian/bus';
import { DURABLES, EVENTS, STREAMS, orderPaidSchema, type CloudEvent } from '@meridian/contracts';
import { findRun, moveRun } from '../db/repositories/runs.js';
import type { AnalysisDeps } from '../deps.js';
import { SERVICE } from '../deps.js';
import { enqueueRun } from '../flows/events.js';

/**
 * Billing announces an order paid (a deposit whose memo is the run id, or a credit spend whose
 * answer we lost): a run awaiting payment, or one whose quote lapsed unpaid, is queued. A run
 * already queued by the spend's answer is left alone. Idempotent (applyOnce) and safe to replay.
 */
export async function applyOrderPaid(deps: AnalysisDeps, event: CloudEvent): Promise<void> {
  const parsed = orderPaidSchema.safeParse(event.data);
  if (!parsed.success || !parsed.data.order_id.startsWith('run-')) return;
  const { order_id, account_id, amount_atomic, paid_at } = parsed.data;
  await deps.db.transaction().execute((trx) =>
    applyOnce(trx, SERVICE, DURABLES.analysisOrderPaid, event.id, async () => {
      const run = await findRun(trx, order_id);
      if (!run || run.account_id !== account_id) return;
      const lapsed = run.status === 'failed' && run.error === 'payment_not_received';
      if (run.status !== 'awaiting_payment' && !lapsed) return;
      const queued = await moveRun(trx, run.id, [run.status], {
        status: 'queued',
        error: null,
        finished_at: null,
        amount_atomic: Math.abs(amount_atomic),
        queued_at: new Date(paid_at),
      });
      if (queued) await enqueueRun(trx, run.id, 1);
    }),
  );
}

export function orderPaidConsumers(deps: AnalysisDeps): ConsumerSpec<never>[] {
  return [
    {
      stream: STREAMS.billing.name,
      durable: DURABLES.analysisOrderPaid,
      filterSubject: EVENTS.billingOrderPaid,
      handler: (event: CloudEvent<never>) => applyOrderPaid(deps, event),
    },
  ];
}
