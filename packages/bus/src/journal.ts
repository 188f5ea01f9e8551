// kysely's `sql` is imported where it is used (see outbox.ts).
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- the journal lives in a schema whose Database type this package cannot know */

/** One message of an in-process stream, as kept in the journal. */
export interface JournalMessage {
  stream: string;
  seq: number;
  msgId: string;
  subject: string;
  data: string;
  headers: Record<string, string>;
}

/** A message a durable consumer settled (acknowledged or dead-lettered): never delivered to it again. */
export interface JournalSettlement {
  stream: string;
  durable: string;
  seq: number;
}

/**
 * Where the in-process bus keeps its streams and its durable consumers' positions, so that what was
 * published but not yet consumed when the process stopped (even by SIGKILL) is delivered at the next
 * start, as JetStream does on NATS.
 */
export interface BusJournal {
  load(): Promise<{ messages: JournalMessage[]; settled: JournalSettlement[] }>;
  /** Resolves once the message is stored; the bus hands it to consumers only then. */
  append(message: JournalMessage): Promise<void>;
  settle(settlement: JournalSettlement): Promise<void>;
}

/**
 * How long a message every consumer of its stream settled stays in the journal: a durable added by a
 * later build still finds this much history (a JetStream stream's max age, in spirit), and the journal,
 * read whole at start, does not grow with the whole life of a `.data` directory.
 */
export const JOURNAL_KEEP_SETTLED_DAYS = 7;

/**
 * Drops the messages older than JOURNAL_KEEP_SETTLED_DAYS that every durable known on their stream
 * (one that settled anything there) has settled, and their settlements. A message some consumer has
 * not settled stays, whatever its age: it is still owed.
 */
async function trimJournal(db: Kysely<any>, schema: string): Promise<void> {
  const { sql } = await import('kysely');
  const messages = sql.table(`${schema}.bus_messages`);
  const settled = sql.table(`${schema}.bus_settled`);
  await sql`
    with gone as (
      delete from ${messages} m
      where m.stored_at < now() - make_interval(days => ${JOURNAL_KEEP_SETTLED_DAYS})
        and not exists (
          select 1 from (select distinct durable from ${settled} k where k.stream = m.stream) d
          where not exists (
            select 1 from ${settled} s where s.stream = m.stream and s.durable = d.durable and s.seq = m.seq
          )
        )
      returning m.stream, m.seq
    )
    delete from ${settled} s using gone where s.stream = gone.stream and s.seq = gone.seq`.execute(db);
}

/**
 * A journal in `schema` of the embedded database (tables `bus_messages` and `bus_settled`, created
 * if missing). Only for a database one process owns (PGlite behind its directory lock): two buses
 * on one journal would each deliver the other's messages.
 */
export async function openBusJournal(db: Kysely<any>, schema: string): Promise<BusJournal> {
  const { sql } = await import('kysely');
  await db.schema.createSchema(schema).ifNotExists().execute();
  const s = db.schema.withSchema(schema);
  await s
    .createTable('bus_messages')
    .ifNotExists()
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('msg_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('headers', 'jsonb', (c) => c.notNull())
    .addColumn('stored_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('bus_messages_pkey', ['stream', 'seq'])
    .execute();
  await s
    .createTable('bus_settled')
    .ifNotExists()
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('durable', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('bus_settled_pkey', ['stream', 'durable', 'seq'])
    .execute();
  const q = db.withSchema(schema);
  return {
    load: async () => {
      await trimJournal(db, schema);
      const rows = await q
        .selectFrom('bus_messages')
        .select(['stream', 'seq', 'msg_id', 'subject', 'data', 'headers'])
        .orderBy('stream')
        .orderBy('seq')
        .execute();
      const settled = await q.selectFrom('bus_settled').select(['stream', 'durable', 'seq']).execute();
      return {
        messages: rows.map((r: any) => ({
          stream: r.stream,
          seq: Number(r.seq),
          msgId: r.msg_id,
          subject: r.subject,
          data: r.data,
          // pg and PGlite parse jsonb; a driver that does not hands over the text.
          headers: typeof r.headers === 'string' ? JSON.parse(r.headers) : r.headers,
        })),
        settled: settled.map((r: any) => ({ stream: r.stream, durable: r.durable, seq: Number(r.seq) })),
      };
    },
    append: async (m) => {
      await q
        .insertInto('bus_messages')
        .values({
          stream: m.stream,
          seq: m.seq,
          msg_id: m.msgId,
          subject: m.subject,
          data: m.data,
          headers: JSON.stringify(m.headers),
        })
        .execute();
    },
    settle: async (s) => {
      await q
        .insertInto('bus_settled')
        .values(s)
        .onConflict((oc) => oc.columns(['stream', 'durable', 'seq']).doNothing())
        .execute();
    },
  };
}
