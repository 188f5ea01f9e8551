export const WEEK_MS = 7 * 86_400_000;

/**
 * The week a due re-scan belongs to, named by its due instant (ISO, to the second): the unique
 * (domain, week) index makes a second replica's attempt at the same week a no-op.
 */
export function rescanWeek(dueAt: Date): string {
  return dueAt.toISOString().slice(0, 19);
}

/** The next due time after `dueAt` that lies in the future: missed weeks are skipped, not caught up. */
export function nextDue(dueAt: Date, now: Date): Date {
  let next = dueAt.getTime() + WEEK_MS;
  if (next <= now.getTime()) next += Math.ceil((now.getTime() - next + 1) / WEEK_MS) * WEEK_MS;
  return new Date(next);
}
