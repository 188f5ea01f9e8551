import type { CloudEvent } from '@meridian/contracts';
import type { Logger } from '@meridian/observability';
// kysely's `sql` is imported where it is used, so a process without a database (the gateway)
// does not hold kysely in its idle memory because of this package.
import type { Generated, Kysely } from 'kysely';
import type { z } from 'zod';
import { newEvent } from './event.js';
import { assertPublishSubject } from './subjects.js';
import type { Bus } from './types.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the outbox lives in every service's schema, whose Database type this package cannot know */

/**
 * For a service's first migration: the outbox its relay publishes from, and the ids of the events its
 * consumers applied. `seq` keeps the order in which events were written, which `created_at` (the
 * transaction's start time) cannot.
 */
/** The tables createOutboxTables makes, for a service's Kysely Database interface to extend. */
export interface OutboxTables {
  outbox: {
    id: string;
    seq: Generated<number>;
    subject: string;
    payload: unknown;
    created_at: Generated<Date>;
    sent_at: Date | null;
  };
  processed_events: {
    consumer: string;
    event_id: string;
    processed_at: Generated<Date>;
  };
}

/** Frozen: every service's first migration calls it, so a change here is a new function. */
export async function createOutboxTables(db: Kysely<any>, schema: string): Promise<void> {
  const { sql } = await import('kysely');
  await db.schema.createSchema(schema).ifNotExists().execute();
  const s = db.schema.withSchema(schema);
  await s
    .createTable('outbox')
    .ifNotExists()
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.generatedAlwaysAsIdentity())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('sent_at', 'timestamptz')
    .execute();
  await s
    .createIndex('outbox_pending_idx')
    .ifNotExists()
    .on('outbox')
    .column('seq')
    .where(sql.ref('sent_at'), 'is', null)
    .execute();
  await s
    .createTable('processed_events')
    .ifNotExists()
    .addColumn('consumer', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('processed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('processed_events_pkey', ['consumer', 'event_id'])
    .execute();
}

/** Call inside the transaction that makes the change the event announces: both commit or neither. */
export async function writeOutbox(
  trx: Kysely<any>,
  schema: string,
  event: CloudEvent,
  subject: string = event.type,
): Promise<void> {
  assertPublishSubject(subject);
  await trx
    .withSchema(schema)
    .insertInto('outbox')
    .values({ id: event.id, subject, payload: JSON.stringify(event) })
    .execute();
}

export interface OutboxRelayOptions {
  db: Kysely<any>;
  schema: string;
  bus: Pick<Bus, 'publish'>;
  logger?: Logger;
  intervalMs?: number;
  batchSize?: number;
  /**
   * Lock the pass's rows (FOR UPDATE SKIP LOCKED) so that relay replicas share them; default true.
   * False on the embedded database: it has one connection and one process, and the in-process bus
   * needs that connection to journal what it is given while the relay publishes. A row published but
   * not marked (crash) is then published again at the next start and dropped by its id.
   */
  lockRows?: boolean;
  /**
   * Test seams: `beforePublish` runs before each row is published (after its commit), `afterPublish`
   * after each publish and before the row is marked sent; a throw stops the pass there.
   */
  hooks?: { beforePublish?: (id: string) => Promise<void>; afterPublish?: (id: string) => Promise<void> };
}

export interface OutboxRelay {
  /** Runs one pass now, after any pass in progress; resolves to the number of rows marked sent. */
  flush(): Promise<number>;
  /** Stops the loop after the pass in progress. */
  close(): Promise<void>;
}

/**
 * Publishes pending outbox rows, oldest first. Rows are locked with SKIP LOCKED for the pass, so relay
 * replicas never publish the same row at once; a row published but not marked (crash) is published
 * again later and JetStream drops the copy by its message id.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const intervalMs = options.intervalMs ?? 200;
  const batchSize = options.batchSize ?? 100;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<unknown> = Promise.resolve();

  const pass = (): Promise<number> => {
    const run = chain.then(() => (closed ? 0 : relayBatch(options, batchSize)));
    chain = run.catch(() => undefined);
    return run;
  };
  const tick = async (): Promise<void> => {
    let delay = intervalMs;
    try {
      // A full batch means a backlog: go again at once.
      if ((await pass()) >= batchSize) delay = 0;
    } catch (err) {
      options.logger?.error({ err, schema: options.schema }, 'outbox relay pass failed');
    }
    if (!closed) timer = setTimeout(() => void tick(), delay);
  };
  timer = setTimeout(() => void tick(), intervalMs);

  return {
    flush: pass,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await chain;
    },
  };
}

async function relayBatch(options: OutboxRelayOptions, batchSize: number): Promise<number> {
  if (options.lockRows === false) return relayUnlocked(options, batchSize);
  const { sql } = await import('kysely');
  return options.db.transaction().execute(async (trx) => {
    const rows = await trx
      .withSchema(options.schema)
      .selectFrom('outbox')
      .select(['id', 'subject', 'payload'])
      .where('sent_at', 'is', null)
      .orderBy('seq')
      .limit(batchSize)
      .forUpdate()
      .skipLocked()
      .execute();
    const sent = await publishRows(options, rows as OutboxRow[]);
    if (sent.length > 0) {
      await trx
        .withSchema(options.schema)
        .updateTable('outbox')
        .set({ sent_at: sql`now()` })
        .where('id', 'in', sent)
        .execute();
    }
    return sent.length;
  });
}

async function relayUnlocked(options: OutboxRelayOptions, batchSize: number): Promise<number> {
  const { sql } = await import('kysely');
  const rows = await options.db
    .withSchema(options.schema)
    .selectFrom('outbox')
    .select(['id', 'subject', 'payload'])
    .where('sent_at', 'is', null)
    .orderBy('seq')
    .limit(batchSize)
    .execute();
  const sent = await publishRows(options, rows as OutboxRow[]);
  if (sent.length > 0) {
    await options.db
      .withSchema(options.schema)
      .updateTable('outbox')
      .set({ sent_at: sql`now()` })
      .where('id', 'in', sent)
      .execute();
  }
  return sent.length;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
}

/** Publishes in order and stops at the first failure, so a later event never overtakes an earlier one. */
async function publishRows(options: OutboxRelayOptions, rows: OutboxRow[]): Promise<string[]> {
  const sent: string[] = [];
  for (const row of rows) {
    try {
      // pg and PGlite parse jsonb; a driver that does not hands over the text.
      const event = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as CloudEvent;
      await options.hooks?.beforePublish?.(row.id);
      await options.bus.publish(event, { subject: row.subject });
      await options.hooks?.afterPublish?.(row.id);
      sent.push(row.id);
    } catch (err) {
      options.logger?.error({ err, id: row.id, subject: row.subject }, 'outbox publish failed; will retry');
      break;
    }
  }
  return sent;
}

/**
 * Runs `fn` only the first time this consumer sees this event id, inside the caller's transaction, so
 * the record and the change commit together. Returns whether `fn` ran.
 */
export async function applyOnce<D extends Kysely<any>>(
  trx: D,
  schema: string,
  consumer: string,
  eventId: string,
  fn: (trx: D) => Promise<void>,
): Promise<boolean> {
  if (!trx.isTransaction) throw new Error('applyOnce needs a transaction');
  const inserted = await trx
    .withSchema(schema)
    .insertInto('processed_events')
    .values({ consumer, event_id: eventId })
    .onConflict((oc) => oc.columns(['consumer', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  if (!inserted) return false;
  await fn(trx);
  return true;
}

/**
 * A service's typed outbox writer: `announce(trx, type, data)` checks `data` against the schema of
 * `type`, then writes the event into the outbox of the transaction that makes the change.
 */
export function outboxAnnouncer<S extends Record<string, z.ZodType>>(service: string, schemas: S) {
  return async <T extends keyof S & string>(
    trx: Kysely<any>,
    type: T,
    data: z.infer<S[T]>,
  ): Promise<void> => {
    const payload = schemas[type]!.parse(data);
    await writeOutbox(trx, service, newEvent(service, type, payload));
  };
}
