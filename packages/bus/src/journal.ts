import { sql, type Kysely } from 'kysely';

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
 * A journal in `schema` of the embedded database (tables `bus_messages` and `bus_settled`, created
 * if missing). Only for a database one process owns (PGlite behind its directory lock): two buses
 * on one journal would each deliver the other's messages.
 */
export async function openBusJournal(db: Kysely<any>, schema: string): Promise<BusJournal> {
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
