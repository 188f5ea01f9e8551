import { sql, type Kysely, type Transaction } from 'kysely';
import { z } from 'zod';
import type { OperatorActionsTable } from './operator-actions.js';

/** What a page of the operator log is narrowed to; every filter is optional. */
export interface OperatorLogFilters {
  /** The actor as logged, or an operator's account id (logged as `operator:<id>`). */
  operator?: string;
  /** The action as logged, or its family: `credit` matches `credit.grant` and `credit.revoke`. */
  action?: string;
  /** The target as logged, or the id it names: an account id matches `account:<id>`. */
  target?: string;
  /** From this instant on (inclusive). */
  since?: Date;
  /** Before this instant (exclusive). */
  until?: Date;
  limit: number;
  /** Only rows logged before this one: the position a cursor carries. */
  before?: number;
}

export interface OperatorLogRow {
  id: number;
  at: Date;
  actor: string;
  action: string;
  target: string;
  reason: string;
  operator_email: string | null;
}

export interface OperatorLogPage {
  /** Newest first. */
  actions: OperatorLogRow[];
  /** The same filters, placed after the last row; null on the last page. */
  next: OperatorLogFilters | null;
}

/** Signs and reads opaque cursors: http-kit's `cursorCodec` fits. */
export interface OperatorLogCursors {
  sign(state: Record<string, unknown>): string;
  verify(cursor: string): Record<string, unknown> | undefined;
}

type WithActions = { operator_actions: OperatorActionsTable };

/**
 * One page of a service's operator log, newest first (the log's insertion order), narrowed by the
 * filters. Reads one row more than the limit to know whether another page follows.
 */
export async function listOperatorActions<DB extends WithActions>(
  db: Kysely<DB> | Transaction<DB>,
  filters: OperatorLogFilters,
): Promise<OperatorLogPage> {
  // A service's schema holds more tables than this one; the query touches only it.
  const own = db as unknown as Kysely<WithActions>;
  const { operator, action, target, since, until, before } = filters;
  const rows = await own
    .selectFrom('operator_actions')
    .select(['id', 'at', 'actor', 'action', 'target', 'reason', 'operator_email'])
    .$if(operator !== undefined, (q) => q.where('actor', 'in', [operator!, `operator:${operator!}`]))
    .$if(action !== undefined, (q) =>
      q.where((eb) =>
        eb.or([eb('action', '=', action!), eb(sql`left(action, ${action!.length + 1})`, '=', `${action!}.`)]),
      ),
    )
    .$if(target !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('target', '=', target!),
          eb(sql`right(target, ${target!.length + 1})`, '=', `:${target!}`),
        ]),
      ),
    )
    .$if(since !== undefined, (q) => q.where('at', '>=', since!))
    .$if(until !== undefined, (q) => q.where('at', '<', until!))
    .$if(before !== undefined, (q) => q.where('id', '<', String(before)))
    .orderBy('id', 'desc')
    .limit(filters.limit + 1)
    .execute();
  const actions = rows.slice(0, filters.limit).map((r) => ({ ...r, id: Number(r.id) }));
  const last = actions.at(-1);
  return { actions, next: rows.length > filters.limit && last ? { ...filters, before: last.id } : null };
}

const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const text = z.string().trim().min(1).max(200);

/**
 * The query of a log route: `operator`, `action`, `target`, `since`, `until`, `limit`, `cursor`.
 * A cursor is bound to its log (`scope`) and to the filters it was given with, so it cannot be
 * forged, nor replayed on another service's log or with other filters.
 */
export function operatorLogQuery(scope: string, cursors: OperatorLogCursors) {
  return z
    .object({
      operator: text.optional(),
      action: text.optional(),
      target: text.optional(),
      since: instant.optional(),
      until: instant.optional(),
      limit: z.coerce.number().int().min(1).max(500).default(100),
      cursor: z.string().min(1).max(1000).optional(),
    })
    .strict()
    .transform(({ cursor, ...filters }, ctx): OperatorLogFilters => {
      if (cursor === undefined) return filters;
      const state = cursors.verify(cursor);
      const { b, ...bound } = state ?? {};
      if (typeof b !== 'number' || JSON.stringify(bound) !== JSON.stringify(boundState(scope, filters))) {
        ctx.addIssue({
          code: 'custom',
          path: ['cursor'],
          message: 'not a cursor this log gave with these filters',
        });
        return z.NEVER;
      }
      return { ...filters, before: b };
    });
}

/** A page of the log as a log route answers it: its rows and the signed cursor of the next page. */
export async function operatorLogPage<DB extends WithActions>(
  db: Kysely<DB> | Transaction<DB>,
  scope: string,
  cursors: OperatorLogCursors,
  filters: OperatorLogFilters,
) {
  const page = await listOperatorActions(db, filters);
  return {
    rows: page.actions.map(operatorLogEntry),
    next_cursor: operatorLogCursor(scope, page.next, cursors),
  };
}

/** The cursor of the page after `next`, signed; null when there is none. */
function operatorLogCursor(
  scope: string,
  next: OperatorLogFilters | null,
  cursors: OperatorLogCursors,
): string | null {
  if (!next || next.before === undefined) return null;
  return cursors.sign({ ...boundState(scope, next), b: next.before });
}

/** The log row as the console reads it. */
function operatorLogEntry(row: OperatorLogRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    operator_account_id: row.actor.startsWith('operator:') ? row.actor.slice('operator:'.length) : null,
    /** The email identity checked the operator by, where the row names one (part of its hash). */
    operator_email: row.operator_email,
    action: row.action,
    target: row.target,
    reason: row.reason,
  };
}

function boundState(scope: string, f: Omit<OperatorLogFilters, 'limit' | 'before'>) {
  return {
    s: scope,
    o: f.operator ?? null,
    a: f.action ?? null,
    t: f.target ?? null,
    f: f.since?.toISOString() ?? null,
    u: f.until?.toISOString() ?? null,
  };
}
