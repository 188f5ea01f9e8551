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
  /** A period of another tier that the purchase cuts short, and the unused part of it given back. */
  replaces?: { period: Period; unused_atomic: number };
}

/**
 * What buying a month of `tier` does. The same tier while one runs: a month more after the run
 * (a renewal paid ahead). Another tier while one runs: the new tier starts now and the unused
 * part of the current period is given back pro rata (a switch, not a double charge).
 */
export function purchase(periods: readonly Period[], tier: string, now: Date): Result<Purchase, 'conflict'> {
  const current = currentOf(periods, now);
  if (!current) return ok({ starts_at: now, expires_at: addMonth(now) });
  if (current.period.tier === tier) {
    const ahead = periods.filter((p) => p.tier === tier && p.expires_at > now).length;
    if (ahead >= MAX_PERIODS_AHEAD)
      return refuse('conflict', `${MAX_PERIODS_AHEAD} months of ${tier} are already paid; buy more later.`);
    return ok({ starts_at: current.runs_until, expires_at: addMonth(current.runs_until) });
  }
  if (current.runs_until.getTime() !== current.period.expires_at.getTime())
    return refuse(
      'conflict',
      `Months of ${current.period.tier} are paid ahead; switch tiers when they have run out.`,
    );
  return ok({
    starts_at: now,
    expires_at: addMonth(now),
    replaces: { period: current.period, unused_atomic: unusedPart(current.period, now) },
  });
}

/** The unpaid-for remainder of a period, rounded down to the atomic unit. */
export function unusedPart(period: Period, now: Date): number {
  const whole = period.expires_at.getTime() - period.starts_at.getTime();
  const left = Math.max(0, period.expires_at.getTime() - now.getTime());
  return whole <= 0 ? 0 : Math.floor((period.paid_atomic * left) / whole);
}
