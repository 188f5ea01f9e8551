import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';

const INT8_OID = 20;

/**
 * bigint columns hold money in atomic units. pg answers them as strings and PGlite as BigInt;
 * both become a JS number here. A value past 2^53 stays a BigInt on both drivers rather than
 * losing precision, and JSON serialisation of it then fails loudly.
 */
export function parseInt8(value: string): number | bigint {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : BigInt(value);
}

pg.types.setTypeParser(INT8_OID, parseInt8);

export type DatabaseTarget =
  { kind: 'pg'; url: string; poolSize?: number } | { kind: 'pglite'; pglite: PGlite };

export interface OpenDatabase<DB> {
  db: Kysely<DB>;
  kind: 'pg' | 'pglite';
  /** Closes the pool; a shared PGlite instance is left open for the other services using it. */
  close(): Promise<void>;
}

/** A Kysely instance bound to one service's schema (`withSchema`), on pg or on a shared PGlite. */
export function openDatabase<DB>(target: DatabaseTarget, schema: string): OpenDatabase<DB> {
  if (target.kind === 'pg') {
    const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize ?? 10 });
    // An idle client dropped by the server (restart, failover, a forced drop) is removed from the
    // pool and the next checkout reconnects; unhandled, the pool's 'error' would end the process.
    pool.on('error', () => {});
    // A client checked out (inside a transaction, between two of its queries) when the server goes
    // away emits 'error' too, and the pool listens only to idle ones: unhandled, it would end the
    // process at every database restart. The failure reaches the client's next query instead, and
    // the pool discards the client when it is released (it is no longer queryable).
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }).withSchema(schema);
    return { db, kind: 'pg', close: () => db.destroy() };
  }
  const db = (sharedPGliteRoot(target.pglite) as Kysely<DB>).withSchema(schema);
  return { db, kind: 'pglite', close: async () => {} };
}

const pgliteRoots = new WeakMap<PGlite, Kysely<unknown>>();

/**
 * PGlite has one connection. Every service of the all-in-one process goes through one Kysely
 * driver per PGlite, so that its connection lock keeps one service's transaction from
 * interleaving with another service's queries.
 */
function sharedPGliteRoot(pglite: PGlite): Kysely<unknown> {
  let root = pgliteRoots.get(pglite);
  if (!root) {
    root = new Kysely<unknown>({ dialect: new PGliteDialect({ pglite: pglite as never }) });
    pgliteRoots.set(pglite, root);
  }
  return root;
}
