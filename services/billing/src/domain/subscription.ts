import { ok, refuse, type Result } from '@meridian/contracts';

/** What a subscription period is of: an audit tier (portal 4.4) or a paid data plan. */
export type Product = 'audit' | 'data_plan';

export interface Period {
  id: number;
  tier: string;
  starts_at: Date;
  expires_at: Date;
  /** Atomic units paid for the period (the debit of its ledger entry). */
  paid_atomic: number;
  ledger_entry_id: number;
}

/** Paying ahead is capped, so credit is not locked away for years by a slip of the finger. */
export const MAX_PERIODS_AHEAD = 12;

/** One calendar month later, on the last day of the month when the day does not exist (31 Jan → 28/29 Feb). */
export function addMonth(from: Date): Date {
  const to = new Date(from);
  const day = to.getUTCDate();
  to.setUTCDate(1);
  to.setUTCMonth(to.getUTCMonth() + 1);
  const last = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth() + 1, 0)).getUTCDate();
  to.setUTCDate(Math.min(day, last));
  return to;
}

/** The period covering `now`, and the expiry of the unbroken run of same-tier periods after it. */
export function currentOf(
  periods: readonly Period[],
  now: Date,
): { period: Period; runs_until: Date } | undefined {
  const ordered = [...periods].sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime());
  const period = ordered.find((p) => p.starts_at <= now && now < p.expires_at);
  if (!period) return undefined;
  let runsUntil = period.expires_at;
  for (const next of ordered)
    if (next.tier === period.tier && next.starts_at.getTime() === runsUntil.getTime())
      runsUntil = next.expires_at;
  return { period, runs_until: runsUntil };
}

export interface Purchase {
  starts_at: Date;
  expires_at: Date;
  /** A period of a cheaper tier that an upgrade cuts short, and the unused part of it given back. */
  replaces?: { period: Period; unused_atomic: number };
}

/** A month's price of each tier of the product (the price table): a dearer tier is an upgrade. */
export type TierPrices = ReadonlyMap<string, number>;

/** The tiers priced like `item` (`audit:audit_base` → every `audit:*`), by tier. */
export function tierPricesOf(prices: ReadonlyMap<string, number>, item: string): TierPrices {
  const prefix = item.slice(0, item.indexOf(':') + 1);
  return new Map(
    [...prices]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, price]) => [key.slice(prefix.length), price]),
  );
}

/**
 * What buying a month of `tier` does. Nothing running: it starts now. An upgrade (a tier dearer
 * than the current one, nothing paid ahead) starts now and gives back the unused part of the
 * current period pro rata. Anything else (the same tier, a cheaper one) is a month more after
 * what is paid: a switch down never gives money back, so a period that delivered the dearer
 * tier's runs is paid in full, and upgrade-downgrade cycles cost at least the dearest tier.
 */
export function purchase(
  periods: readonly Period[],
  tier: string,
  now: Date,
  prices: TierPrices,
): Result<Purchase, 'conflict'> {
  const current = currentOf(periods, now);
  if (!current) return ok({ starts_at: now, expires_at: addMonth(now) });
  const paidUntil = paidUntilOf(periods, current.runs_until);
  if (isUpgrade(prices, current.period.tier, tier)) {
    if (paidUntil.getTime() !== current.period.expires_at.getTime())
      return refuse(
        'conflict',
        `Months are paid ahead until ${paidUntil.toISOString()}; upgrade to ${tier} when they have run out.`,
      );
    return ok({
      starts_at: now,
      expires_at: addMonth(now),
      replaces: { period: current.period, unused_atomic: unusedPart(current.period, now) },
    });
  }
  const ahead = periods.filter((p) => p.expires_at > now).length;
  if (ahead >= MAX_PERIODS_AHEAD)
    return refuse('conflict', `${MAX_PERIODS_AHEAD} months are already paid; buy more later.`);
  return ok({ starts_at: paidUntil, expires_at: addMonth(paidUntil) });
}

const isUpgrade = (prices: TierPrices, from: string, to: string): boolean =>
  from !== to && (prices.get(to) ?? 0) > (prices.get(from) ?? 0);

/** The end of the unbroken run of paid periods, whatever their tiers. */
function paidUntilOf(periods: readonly Period[], from: Date): Date {
  let until = from;
  for (const next of [...periods].sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime()))
    if (next.starts_at.getTime() === until.getTime()) until = next.expires_at;
  return until;
}

/** The first period of another tier paid to follow the current run: a switch down waiting for it. */
export function scheduledAfter(
  periods: readonly Period[],
  now: Date,
): { tier: string; starts_at: Date } | undefined {
  const current = currentOf(periods, now);
  if (!current) return undefined;
  const next = periods.find((p) => p.starts_at.getTime() === current.runs_until.getTime());
  return next && { tier: next.tier, starts_at: next.starts_at };
}

/** The unpaid-for remainder of a period, rounded down to the atomic unit. */
export function unusedPart(period: Period, now: Date): number {
  const whole = period.expires_at.getTime() - period.starts_at.getTime();
  const left = Math.max(0, period.expires_at.getTime() - now.getTime());
  return whole <= 0 ? 0 : Math.floor((period.paid_atomic * left) / whole);
}
