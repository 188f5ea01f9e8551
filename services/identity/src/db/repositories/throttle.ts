import type { Kysely } from 'kysely';
import type { ThrottleState } from '../../domain/throttle.js';
import type { Database } from '../database.js';

type Db = Kysely<Database>;

/** Row-locked read for the read-modify-write of one failure, so replicas count every failure. */
export async function lockThrottle(db: Db, scope: string, now: Date): Promise<ThrottleState | undefined> {
  // A zero row first, so that two replicas counting the first failure of a scope lock the same row.
  await db
    .insertInto('login_throttle')
    .values({ scope, failures: 0, last_failure_at: now, blocked_until: null })
    .onConflict((oc) => oc.column('scope').doNothing())
    .execute();
  const r = await db
    .selectFrom('login_throttle')
    .select(['failures', 'last_failure_at', 'blocked_until'])
    .where('scope', '=', scope)
    .forUpdate()
    .executeTakeFirst();
  if (!r || r.failures === 0) return undefined;
  return { failures: r.failures, lastFailureAt: r.last_failure_at, blockedUntil: r.blocked_until };
}

export async function writeThrottle(db: Db, scope: string, s: ThrottleState): Promise<void> {
  const values = { failures: s.failures, last_failure_at: s.lastFailureAt, blocked_until: s.blockedUntil };
  await db
    .insertInto('login_throttle')
    .values({ scope, ...values })
    .onConflict((oc) => oc.column('scope').doUpdateSet(values))
    .execute();
}

export async function clearThrottle(db: Db, scope: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('scope', '=', scope).execute();
}

/** Deletes every counter whose scope starts with `prefix` (taken literally, not as a pattern). */
export async function clearThrottlePrefix(db: Db, prefix: string): Promise<void> {
  const literal = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
  await db.deleteFrom('login_throttle').where('scope', 'like', `${literal}%`).execute();
}
