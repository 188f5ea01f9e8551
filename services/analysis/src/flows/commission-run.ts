import { randomUUID } from 'node:crypto';
import {
  RPC,
  normalizeHostname,
  ok,
  refuse,
  upstream,
  type AuditTier,
  type OrderQuote,
  type PostingReply,
  type Result,
  type Subscription,
  type Upstream,
} from '@meridian/contracts';
import { activeAuthorization } from '../db/repositories/authorizations.js';
import type { DomainRow } from '../db/repositories/domains.js';
import {
  commissionedRun,
  findRun,
  dropUnpaidRun,
  heldRuns,
  insertRun,
  lockAccountRuns,
  moveRun,
  runByIdempotencyKey,
  type RunRow,
} from '../db/repositories/runs.js';
import { covers, runItem } from '../domain/entitlement.js';
import type { AnalysisRefusal } from '../domain/refusals.js';
import { mayCommission } from '../domain/run-caps.js';
import type { AnalysisDeps } from '../deps.js';
import { checkOwnership, ownDomain } from './domains.js';
import { enqueueRun } from './events.js';

export interface RunAsked {
  domain: string;
  tier: AuditTier;
  payment?: 'credit' | 'deposit' | undefined;
}

export type Commissioned = { run: RunRow; replayed: boolean };

/**
 * Commissions a run: the domain must be the caller's and verified; the secure and review tiers
 * need an active authorization and a fresh look at the TXT record. A subscription of the tier or a
 * higher one covers it; otherwise billing charges credit (the run id is the order id, so a retry
 * never pays twice) or quotes a deposit whose memo is the run id. An Idempotency-Key names the run:
 * the same key answers the same run.
 */
export async function commissionRun(
  deps: AnalysisDeps,
  accountId: string,
  asked: RunAsked,
  idempotencyKey: string | undefined,
  now = new Date(),
): Promise<Result<Commissioned, AnalysisRefusal> | Upstream> {
  if (idempotencyKey) {
    const earlier = await runByIdempotencyKey(deps.db, accountId, idempotencyKey);
    if (earlier) return replay(deps, earlier, asked);
  }
  const owned = await ownDomain(deps, accountId, asked.domain);
  if (!owned.ok) return owned;
  const ready = await readyToRun(deps, owned.value, asked.tier, now);
  if (!ready.ok) return ready;
  const sub = await deps.bus.request<Subscription>(RPC.billingSubscriptionRead, { account_id: accountId });
  if (!sub.ok) return upstream(sub.problem);
  const covered = covers(sub.data, asked.tier, now);
  const run = commissionedRun({
    id: `run-${randomUUID()}`,
    account_id: accountId,
    domain_id: owned.value.id,
    domain: owned.value.hostname,
    tier: asked.tier,
    status: covered ? 'queued' : 'awaiting_payment',
    payment: covered ? 'subscription' : (asked.payment ?? 'credit'),
    idempotency_key: idempotencyKey ?? null,
    origin: 'request',
    created_at: now,
    queued_at: covered ? now : null,
  });
  const placed = await placeRun(deps, run, now);
  if (!placed.ok) return placed;
  if (placed.value === 'key_taken') {
    // Another request with the same Idempotency-Key won the race: answer its run.
    const earlier = idempotencyKey
      ? await runByIdempotencyKey(deps.db, accountId, idempotencyKey)
      : undefined;
    if (!earlier) throw new Error('a run insert conflicted without an idempotency key');
    return replay(deps, earlier, asked);
  }
  if (run.payment === 'deposit') return quoteDeposit(deps, run);
  if (run.payment !== 'credit') return ok({ run, replayed: false });
  return payFromCredit(deps, run, false, now);
}

/**
 * Inserts the run within the account's caps, decided under a lock on the account so that runs
 * asked at once are counted one after the other; a covered run is queued in the same transaction.
 */
async function placeRun(
  deps: AnalysisDeps,
  run: RunRow,
  now: Date,
): Promise<Result<'placed' | 'key_taken', AnalysisRefusal>> {
  const { RUN_QUEUED_PER_ACCOUNT, RUN_UNPAID_QUOTES_PER_ACCOUNT, RUN_QUOTE_HOURS } = deps.config;
  const caps = { unfinished: RUN_QUEUED_PER_ACCOUNT, openQuotes: RUN_UNPAID_QUOTES_PER_ACCOUNT };
  const quotedSince = new Date(now.getTime() - RUN_QUOTE_HOURS * 3_600_000);
  return deps.db
    .transaction()
    .execute(async (trx): Promise<Result<'placed' | 'key_taken', AnalysisRefusal>> => {
      await lockAccountRuns(trx, run.account_id);
      if (run.idempotency_key && (await runByIdempotencyKey(trx, run.account_id, run.idempotency_key)))
        return ok('key_taken');
      const allowed = mayCommission(caps, await heldRuns(trx, run.account_id, quotedSince), run.payment);
      if (!allowed.ok) return allowed;
      if (!(await insertRun(trx, run))) return ok('key_taken');
      if (run.status === 'queued') await enqueueRun(trx, run.id, 1);
      return ok('placed');
    });
}

/** The order billing charges or quotes for a run: the run id is the order id, so a retry is one order. */
const orderOf = (run: RunRow) => ({
  account_id: run.account_id,
  order_id: run.id,
  item: runItem(run.tier as AuditTier),
});

/** Billing registers the deposit order of a placed run and says where to pay; the run keeps the quote. */
async function quoteDeposit(
  deps: AnalysisDeps,
  run: RunRow,
): Promise<Result<Commissioned, AnalysisRefusal> | Upstream> {
  const quote = await deps.bus.request<OrderQuote>(RPC.billingOrderRegister, orderOf(run));
  if (!quote.ok) {
    await dropUnpaidRun(deps.db, run.id);
    return upstream(quote.problem);
  }
  const { amount_atomic, deposit_address, memo, asset, network } = quote.data;
  // Billing refuses an order paid by deposit when it has no deposit address.
  if (deposit_address === null) throw new Error('billing quoted a deposit order without a deposit address');
  const pay = { amount_atomic, deposit_address, memo, asset, network };
  const quoted = await moveRun(deps.db, run.id, ['awaiting_payment'], { amount_atomic, pay });
  return ok({ run: quoted ?? { ...run, amount_atomic, pay }, replayed: false });
}

/** The checks before any money moves: verified, and for active tiers authorized and still proved. */
export async function readyToRun(
  deps: AnalysisDeps,
  domain: DomainRow,
  tier: AuditTier,
  now: Date,
): Promise<Result<null, AnalysisRefusal>> {
  if (!domain.verified_at)
    return refuse(
      'domain_not_verified',
      `${domain.hostname} is not verified; publish its TXT record and verify it.`,
    );
  if (tier === 'audit_base') return ok(null);
  if (!(await activeAuthorization(deps.db, domain.id, now)))
    return refuse(
      'authorization_required',
      `A ${tier} run tests ${domain.hostname} actively: it needs an active authorization (POST /v1/audit/authorize).`,
    );
  const check = await checkOwnership(deps, domain, now);
  if (!check.ok) return check;
  if (!check.value.found)
    return refuse(
      'domain_not_verified',
      `The TXT record of ${domain.hostname} is gone; it is no longer verified. Publish it again and verify.`,
    );
  return ok(null);
}

async function replay(
  deps: AnalysisDeps,
  run: RunRow,
  asked: RunAsked,
): Promise<Result<Commissioned, AnalysisRefusal> | Upstream> {
  const named = normalizeHostname(asked.domain);
  const sameDomain = named.ok && named.value === run.domain;
  // A run a subscription covered was never asked to pay: either way of paying asked for it.
  const samePayment = run.payment === 'subscription' || run.payment === (asked.payment ?? 'credit');
  if (run.tier !== asked.tier || !sameDomain || !samePayment)
    return refuse(
      'conflict',
      'This Idempotency-Key named another run (another domain, tier or way of paying).',
    );
  // A first answer lost to billing's silence: the spend is asked again, under the same order id.
  if (run.status === 'awaiting_payment' && run.payment === 'credit')
    return payFromCredit(deps, run, true, new Date());
  return ok({ run, replayed: true });
}

async function payFromCredit(
  deps: AnalysisDeps,
  run: RunRow,
  replayed: boolean,
  now: Date,
): Promise<Result<Commissioned, AnalysisRefusal> | Upstream> {
  const spent = await deps.bus.request<PostingReply>(RPC.billingCreditSpend, orderOf(run));
  if (!spent.ok) {
    // Refused (402 short of credit...): nothing stays behind. Billing silent: the run waits, and
    // billing's paid event starts it if the spend went through after all.
    if (spent.problem.status < 500) await dropUnpaidRun(deps.db, run.id);
    return upstream(spent.problem);
  }
  const queued = await deps.db.transaction().execute(async (trx) => {
    const moved = await moveRun(trx, run.id, ['awaiting_payment'], {
      status: 'queued',
      amount_atomic: Math.abs(spent.data.amount_atomic),
      queued_at: now,
    });
    if (moved) await enqueueRun(trx, run.id, 1);
    return moved;
  });
  return ok({ run: queued ?? (await findRun(deps.db, run.id)) ?? run, replayed });
}
