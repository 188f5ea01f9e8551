import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CloudEvent } from '@meridian/contracts';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import {
  applyOnce,
  createNatsBus,
  createOutboxTables,
  newEvent,
  startOutboxRelay,
  writeOutbox,
  type Bus,
  type Closable,
} from '../src/index.js';
import { TEST_NATS_URL, deleteNatsNamespace, uniqueName, waitFor } from '../src/testing.js';

const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const SCHEMA = 'svc';
const CONSUMER = 'test__record';
const namespace = `t${randomUUID().slice(0, 8)}`;
const database = `bus_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const root = uniqueName('ob');
const STREAM = root.toUpperCase();
const SUBJECT = `${root}.order.placed.v1`;

/** The forced drop at the end kills idle clients; their pool must not turn that into an unhandled error. */
function quietPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', () => {});
  return pool;
}

function kysely(db: string): Kysely<any> {
  return new Kysely<any>({
    dialect: new PostgresDialect({ pool: quietPool(`${PG_URL}/${db}`) }),
  });
}

describe('outbox relay and idempotent consumer (Postgres + NATS)', () => {
  const admin = kysely('postgres');
  let db: Kysely<any>;
  let bus: Bus;
  let consumer: Closable;
  const deliveries: string[] = [];

  beforeAll(async () => {
    await sql`create database ${sql.id(database)}`.execute(admin);
    db = kysely(database);
    await createOutboxTables(db, SCHEMA);
    await db.schema.withSchema(SCHEMA).createTable('applied').addColumn('event_id', 'text').execute();
    bus = await createNatsBus({ url: TEST_NATS_URL, name: 'outbox-test', namespace });
    await bus.ensureStream({ name: STREAM, subjects: [`${root}.>`] });
    consumer = await bus.consume({
      stream: STREAM,
      durable: CONSUMER,
      filterSubject: `${root}.>`,
      handler: record,
    });
  });

  afterAll(async () => {
    await consumer?.close();
    await bus?.close();
    await db?.destroy();
    await sql`drop database if exists ${sql.id(database)} with (force)`.execute(admin);
    await admin.destroy();
    await deleteNatsNamespace(TEST_NATS_URL, namespace);
  });

  /** The consumer side: applies an event in its own transaction, once per event id. */
  async function record(event: CloudEvent): Promise<void> {
    deliveries.push(event.id);
    await db.transaction().execute((trx) =>
      applyOnce(trx, SCHEMA, CONSUMER, event.id, async (t) => {
        await t.withSchema(SCHEMA).insertInto('applied').values({ event_id: event.id }).execute();
      }),
    );
  }

  async function appliedCount(id: string): Promise<number> {
    const rows = await db
      .withSchema(SCHEMA)
      .selectFrom('applied')
      .selectAll()
      .where('event_id', '=', id)
      .execute();
    return rows.length;
  }

  async function sentAt(id: string): Promise<Date | null | undefined> {
    const row = await db
      .withSchema(SCHEMA)
      .selectFrom('outbox')
      .select('sent_at')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.sent_at as Date | null | undefined;
  }

  it('publishes an event exactly once to the consumer although the first relay died before marking it', async () => {
    const event = newEvent('test', SUBJECT, { order: 1 });
    await db.transaction().execute((trx) => writeOutbox(trx, SCHEMA, event));

    const published: string[] = [];
    const dying = startOutboxRelay({
      db,
      schema: SCHEMA,
      bus,
      intervalMs: 60_000,
      hooks: {
        afterPublish: async (id) => {
          published.push(id);
          throw new Error('relay killed after publishing');
        },
      },
    });
    await expect(dying.flush()).resolves.toBe(0);
    await dying.close();
    expect(published).toEqual([event.id]);
    expect(await sentAt(event.id)).toBeNull();

    const republished: string[] = [];
    const counting = {
      publish: (e: CloudEvent, o?: { subject?: string }) => (republished.push(e.id), bus.publish(e, o)),
    };
    const relay = startOutboxRelay({ db, schema: SCHEMA, bus: counting, intervalMs: 50 });
    try {
      await waitFor(async () => (await sentAt(event.id)) instanceof Date, { what: 'the row marked sent' });
    } finally {
      await relay.close();
    }
    await waitFor(async () => (await appliedCount(event.id)) === 1, { what: 'the event applied' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await appliedCount(event.id)).toBe(1);
    // The second relay did send it again; JetStream dropped the copy by its message id.
    expect(republished).toEqual([event.id]);
    expect(deliveries.filter((id) => id === event.id)).toHaveLength(1);
  });

  it('publishes nothing for a transaction that rolled back', async () => {
    const event = newEvent('test', SUBJECT, { order: 2 });
    const failing = db.transaction().execute(async (trx) => {
      await writeOutbox(trx, SCHEMA, event);
      throw new Error('business rule failed');
    });
    await expect(failing).rejects.toThrow('business rule failed');
    const relay = startOutboxRelay({ db, schema: SCHEMA, bus, intervalMs: 60_000 });
    await expect(relay.flush()).resolves.toBe(0);
    await relay.close();
    expect(await sentAt(event.id)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(deliveries).not.toContain(event.id);
  });

  it('applies an event once per consumer however often it is handed over', async () => {
    const id = randomUUID();
    const runs: boolean[] = [];
    for (let i = 0; i < 2; i++) {
      runs.push(
        await db.transaction().execute((trx) => applyOnce(trx, SCHEMA, CONSUMER, id, async () => undefined)),
      );
    }
    expect(runs).toEqual([true, false]);
    await expect(applyOnce(db, SCHEMA, CONSUMER, randomUUID(), async () => undefined)).rejects.toThrow(
      'needs a transaction',
    );
  });

  it('publishes a backlog in the order it was written', async () => {
    const events = Array.from({ length: 5 }, (_, i) => newEvent('test', SUBJECT, { order: 10 + i }));
    await db.transaction().execute(async (trx) => {
      for (const event of events) await writeOutbox(trx, SCHEMA, event);
    });
    const relay = startOutboxRelay({ db, schema: SCHEMA, bus, intervalMs: 60_000, batchSize: 2 });
    let total = 0;
    for (let n = await relay.flush(); n > 0; n = await relay.flush()) total += n;
    await relay.close();
    expect(total).toBe(5);
    const ids = events.map((e) => e.id);
    await waitFor(() => ids.every((id) => deliveries.includes(id)), { what: 'the backlog' });
    expect(deliveries.filter((id) => ids.includes(id))).toEqual(ids);
  });

  it('lets two relay replicas share a backlog without sending a row twice', async () => {
    const events = Array.from({ length: 20 }, (_, i) => newEvent('test', SUBJECT, { order: 100 + i }));
    await db.transaction().execute(async (trx) => {
      for (const event of events) await writeOutbox(trx, SCHEMA, event);
    });
    const sent: string[] = [];
    const counting = {
      publish: (e: CloudEvent, o?: { subject?: string }) => (sent.push(e.id), bus.publish(e, o)),
    };
    const relays = [1, 2].map(() =>
      startOutboxRelay({ db, schema: SCHEMA, bus: counting, intervalMs: 60_000, batchSize: 3 }),
    );
    const drain = async (relay: (typeof relays)[number]) => {
      while ((await relay.flush()) > 0);
    };
    await Promise.all(relays.map(drain));
    await Promise.all(relays.map((r) => r.close()));
    expect([...sent].sort()).toEqual(events.map((e) => e.id).sort());
    const pending = await db
      .withSchema(SCHEMA)
      .selectFrom('outbox')
      .select('id')
      .where('sent_at', 'is', null)
      .execute();
    expect(pending).toEqual([]);
  });
});
