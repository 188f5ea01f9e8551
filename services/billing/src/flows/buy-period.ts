import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { EVENTS, ok, refuse, type Plan, type Result } from '@meridian/contracts';
import type { BillingRefusal } from '../domain/refusals.js';
import type { Database } from '../db/database.js';
import { findEntryByKey, lockBalance } from '../db/repositories/ledger.js';
import { allPrices } from '../db/repositories/prices.js';
import {
  endPeriod,
  insertPeriod,
  markLapseAnnounced,
  periodsFrom,
  tierPaidBy,
} from '../db/repositories/subscriptions.js';
import {
  currentOf,
  purchase,
  scheduledAfter,
  tierPricesOf,
  type Product,
  type Purchase,
} from '../domain/subscription.js';
import type { BillingDeps } from '../deps.js';
import { announce } from './events.js';
import { inPostingTransaction, postInTransaction } from './post.js';

export interface PeriodOrder {
  account_id: string;
  product: Product;
  tier: string;
  /** The price item, e.g. audit:audit_base or plan:pro. */
  item: string;
  /** Names the purchase: a retry with the same key answers the first purchase. */
  idempotency_key: string;
  actor: string;
}

/** A product's subscription as portal 4.4 shows it: tier, grant and expiry. */
export interface PeriodState {
  tier: string | null;
  granted_at: string | null;
  expires_at: string | null;
  active: boolean;
  /** A switch down paid to follow the current run: the tier, from when. */
  scheduled: { tier: string; starts_at: string } | null;
}

/**
 * Buys a month of an audit tier or a data plan from credit: the debit and the period are written
 * together or not at all (402 when credit is short). A data plan that changes now is announced.
 * The idempotency key names the purchase: a retry answers it, the key on another tier is a 409.
 */
export async function buyPeriod(
  deps: BillingDeps,
  order: PeriodOrder,
  at?: Date,
): Promise<Result<PeriodState, BillingRefusal>> {
  const key = `period:${order.product}:${order.idempotency_key}`;
  return inPostingTransaction(deps, async (trx) => {
    await lockBalance(trx, order.account_id);
    // The instant is taken once the account's purchases are ours alone: a purchase that waited for
    // another must not start, or end the other's period, before the other was bought.
    const now = at ?? new Date();
    const earlier = await findEntryByKey(trx, order.account_id, key);
    if (earlier) {
      // A retry answers the first purchase; the same key on another tier is another order.
      const tier = await tierPaidBy(trx, earlier.id);
      if (tier !== order.tier)
        return refuse(
          'conflict',
          `This Idempotency-Key already bought ${tier ?? 'another purchase'}; buying ${order.tier} needs a key of its own.`,
        );
      return ok(await subscriptionOf(trx, order.account_id, order.product, now));
    }
    const prices = tierPricesOf(await allPrices(trx), order.item);
    const price = prices.get(order.tier);
    if (price === undefined)
      return refuse('not_found', `${order.tier} has no price on this deployment and cannot be bought.`);
    const periods = await periodsFrom(trx, order.account_id, order.product, now);
    const planned = purchase(periods, order.tier, now, prices);
    if (!planned.ok) return planned;
    const orderId = `sub-${createHash('sha256').update(key).digest('base64url').slice(0, 22)}`;
    const reason = order.product === 'audit' ? 'subscription' : 'data_plan';
    const posting = { account_id: order.account_id, ref: orderId, order_id: orderId, actor: order.actor };
    const paid = await postInTransaction(
      trx,
      { ...posting, reason, amount_atomic: price, idempotency_key: key },
      now,
    );
    if (!paid.ok) return paid;
    const { replaces, starts_at, expires_at } = planned.value;
    if (replaces)
      await creditUnusedPart(
        trx,
        { ...posting, ref: `plan change credit: ${replaces.period.tier} to ${order.tier}` },
        replaces,
        now,
      );
    await insertPeriod(trx, {
      account_id: order.account_id,
      product: order.product,
      tier: order.tier,
      starts_at,
      expires_at,
      ledger_entry_id: paid.value.entry.id,
    });
    if (order.product === 'data_plan' && starts_at.getTime() === now.getTime())
      await announce(trx, EVENTS.billingPlanChanged, {
        account_id: order.account_id,
        plan: order.tier as Plan,
        changed_at: now.toISOString(),
      });
    return ok(await subscriptionOf(trx, order.account_id, order.product, now));
  });
}

/**
 * An upgrade's plan change credit: the old period ends now and its unused part comes back as a
 * `refund` entry correcting the period's payment (portal 2.2 has no reason of its own for it), its
 * free-form `ref` saying so in words; the history's `ref` stays the order id.
 */
async function creditUnusedPart(
  trx: Transaction<Database>,
  posting: { account_id: string; ref: string; order_id: string; actor: string },
  replaces: NonNullable<Purchase['replaces']>,
  now: Date,
): Promise<void> {
  await endPeriod(trx, replaces.period.id, now);
  // The upgrade announces its own plan; the period it cut short has no end left to announce.
  await markLapseAnnounced(trx, replaces.period.id, now);
  if (replaces.unused_atomic === 0) return;
  const back = await postInTransaction(
    trx,
    {
      ...posting,
      reason: 'refund',
      amount_atomic: replaces.unused_atomic,
      idempotency_key: `switch:${replaces.period.id}`,
      corrects_id: replaces.period.ledger_entry_id,
    },
    now,
  );
  if (!back.ok) throw new Error(`the plan change credit could not be posted: ${back.code}`);
}

/** The current subscription of one product. */
export async function subscriptionOf(
  db: Transaction<Database> | BillingDeps['db'],
  accountId: string,
  product: Product,
  now: Date,
): Promise<PeriodState> {
  const periods = await periodsFrom(db, accountId, product, now);
  const current = currentOf(periods, now);
  if (!current) return { tier: null, granted_at: null, expires_at: null, active: false, scheduled: null };
  const next = scheduledAfter(periods, now);
  return {
    tier: current.period.tier,
    granted_at: current.period.starts_at.toISOString(),
    expires_at: current.runs_until.toISOString(),
    active: true,
    scheduled: next ? { tier: next.tier, starts_at: next.starts_at.toISOString() } : null,
  };
}
