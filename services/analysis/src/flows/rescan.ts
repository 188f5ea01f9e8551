import { createHash } from 'node:crypto';
import {
  RPC,
  ok,
  refuse,
  type AuditTier,
  type PostingReply,
  type Result,
  type Subscription,
} from '@meridian/contracts';
import type { AnalysisRefusal } from '../domain/refusals.js';
import { domainById } from '../db/repositories/domains.js';
import {
  advanceRescan,
  rescanOf,
  takeDueRescan,
  upsertRescan,
  type RescanRow,
} from '../db/repositories/rescans.js';
import { commissionedRun, insertRun } from '../db/repositories/runs.js';
import { covers, runItem } from '../domain/entitlement.js';
import { WEEK_MS, nextDue, rescanWeek } from '../domain/rescan.js';
import type { AnalysisDeps } from '../deps.js';
import { readyToRun } from './commission-run.js';
import { ownDomain } from './domains.js';
import { enqueueRun } from './events.js';

export function rescanView(row: RescanRow, hostname: string) {
  return {
    domain: hostname,
    enabled: row.enabled,
    tier: row.tier,
    interval: 'week',
    next_run_at: row.enabled ? row.next_due_at.toISOString() : null,
    last_run_id: row.last_run_id,
  };
}

/** Turns the weekly re-scan of a verified domain on (the first a week from now) or off. */
export async function setRescan(
  deps: AnalysisDeps,
  accountId: string,
  asked: { domain: string; enabled: boolean; tier: AuditTier },
  now = new Date(),
): Promise<Result<ReturnType<typeof rescanView>, AnalysisRefusal>> {
  const owned = await ownDomain(deps, accountId, asked.domain);
  if (!owned.ok) return owned;
  if (asked.enabled && !owned.value.verified_at)
    return refuse('domain_not_verified', `${owned.value.hostname} is not verified; verify it first.`);
  const row = await upsertRescan(deps.db, {
    domain_id: owned.value.id,
    account_id: accountId,
    tier: asked.tier,
    enabled: asked.enabled,
    next_due_at: new Date(now.getTime() + WEEK_MS),
    updated_at: now,
  });
  return ok(rescanView(row, owned.value.hostname));
}

export async function readRescan(deps: AnalysisDeps, accountId: string, domain: string) {
  const owned = await ownDomain(deps, accountId, domain);
  if (!owned.ok) return owned;
  const row = await rescanOf(deps.db, owned.value.id);
  return ok(row ? rescanView(row, owned.value.hostname) : null);
}

/** The run id of a domain's re-scan of one week: the same on every replica and every retry. */
function rescanRunId(domainId: string, week: string): string {
  const h = createHash('sha256').update(`${domainId}/${week}`).digest('hex');
  return `run-${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Starts every due re-scan, one row at a time under `FOR UPDATE SKIP LOCKED`, so each due week is
 * taken by one replica; the unique (domain, week) index and the run id derived from them make a
 * repeat a no-op. Paid as a run is (subscription, else credit; the run id is the order id); a week
 * that cannot run (domain unverified, no authorization for an active tier, credit short) is
 * recorded as a failed run with the reason and nothing charged. Billing silent: the transaction
 * rolls back and the next pass tries the same week again.
 */
export async function runDueRescans(deps: AnalysisDeps, now = new Date()): Promise<number> {
  let started = 0;
  for (;;) {
    const took = await deps.db.transaction().execute(async (trx) => {
      const due = await takeDueRescan(trx, now);
      if (!due) return false;
      const week = rescanWeek(due.next_due_at);
      const domain = await domainById(trx, due.domain_id);
      const id = rescanRunId(due.domain_id, week);
      const run = commissionedRun({
        id,
        account_id: due.account_id,
        domain_id: due.domain_id,
        domain: domain?.hostname ?? '',
        tier: due.tier,
        status: 'queued',
        payment: 'subscription',
        origin: 'rescan',
        rescan_week: week,
        created_at: now,
        queued_at: now,
      });
      const tier = due.tier as AuditTier;
      const ready = domain ? await readyToRun(deps, domain, tier, now) : refuse('domain_removed', '');
      if (!ready.ok) {
        if (ready.code === 'service_unavailable') throw new Error('DNS unavailable for a due re-scan');
        Object.assign(run, { status: 'failed', error: ready.code, queued_at: null, finished_at: now });
      } else {
        const sub = await deps.bus.request<Subscription>(RPC.billingSubscriptionRead, {
          account_id: due.account_id,
        });
        if (!sub.ok) throw new Error(`billing did not answer the subscription read (${sub.problem.status})`);
        if (!covers(sub.data, tier, now)) {
          run.payment = 'credit';
          const spent = await deps.bus.request<PostingReply>(RPC.billingCreditSpend, {
            account_id: due.account_id,
            order_id: id,
            item: runItem(tier),
          });
          if (!spent.ok && spent.problem.status >= 500)
            throw new Error(`billing did not answer the spend (${spent.problem.status})`);
          if (spent.ok) run.amount_atomic = Math.abs(spent.data.amount_atomic);
          else
            Object.assign(run, {
              status: 'failed',
              error: 'payment_refused',
              queued_at: null,
              finished_at: now,
            });
        }
      }
      if (await insertRun(trx, run)) {
        if (run.status === 'queued') await enqueueRun(trx, id, 1);
        started += 1;
      }
      await advanceRescan(trx, due.domain_id, nextDue(due.next_due_at, now), id, now);
      return true;
    });
    if (!took) return started;
  }
}
