import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PGlite } from '@electric-sql/pglite';
import type { CloudEvent } from '@meridian/contracts';
import { Kysely, PGliteDialect } from 'kysely';
import {
  applyOnce,
  createOutboxTables,
  newEvent,
  openBusJournal,
  openMemoryBus,
  startOutboxRelay,
  writeOutbox,
  type Bus,
} from '../src/index.js';
import { uniqueName, waitFor } from '../src/testing.js';

const SCHEMA = 'svc';
const JOURNAL = 'bus';
const CONSUMER = 'test__record';

/**
 * The in-process bus on the embedded database, across "restarts": each run is a new bus opened on
 * the same journal, the old one abandoned where it stood (its consumer blocked mid-delivery), as a
 * SIGKILL leaves it. The process-level test is tests-e2e/embedded-restart.test.ts.
 */
describe('in-process bus kept in the embedded database', () => {
  let pglite: PGlite;
  let db: Kysely<any>;
  const gates: Array<() => void> = [];
  const abandoned: Bus[] = [];

  beforeAll(async () => {
    pglite = await PGlite.create();
    db = new Kysely<any>({ dialect: new PGliteDialect({ pglite: pglite as never }) });
    await createOutboxTables(db, SCHEMA);
    await db.schema.withSchema(SCHEMA).createTable('applied').addColumn('event_id', 'text').execute();
  });

  afterAll(async () => {
    // Let the blocked handlers of the abandoned runs fail, so their buses can close.
    for (const open of gates) open();
    await Promise.all(abandoned.map((bus) => bus.close()));
    await db.destroy();
  });

  /** One run: a bus on the journal, its stream, and a consumer that applies once or blocks. */
  async function run(root: string, mode: 'apply' | 'block', delivered: string[]) {
    const bus = await openMemoryBus({ name: 'journal-test', journal: await openBusJournal(db, JOURNAL) });
    await bus.ensureStream({ name: root.toUpperCase(), subjects: [`${root}.>`] });
    await bus.consume({
      stream: root.toUpperCase(),
      durable: CONSUMER,
      filterSubject: `${root}.>`,
      backoffMs: [60_000],
      handler: async (event: CloudEvent) => {
        delivered.push(event.id);
        if (mode === 'block') {
          await new Promise<void>((resolve) => gates.push(resolve));
          throw new Error('the process was gone');
        }
        await db.transaction().execute((trx) =>
          applyOnce(trx, SCHEMA, CONSUMER, event.id, async (t) => {
            await t.withSchema(SCHEMA).insertInto('applied').values({ event_id: event.id }).execute();
          }),
        );
      },
    });
    if (mode === 'block') abandoned.push(bus);
    return bus;
  }

  const relayOn = (bus: Bus, hooks?: { afterPublish?: (id: string) => Promise<void> }) =>
    startOutboxRelay({
      db,
      schema: SCHEMA,
      bus,
      intervalMs: 60_000,
      lockRows: false,
      ...(hooks ? { hooks } : {}),
    });

  async function write(root: string): Promise<CloudEvent> {
    const event = newEvent('test', `${root}.order.placed.v1`, { order: 1 });
    await db.transaction().execute((trx) => writeOutbox(trx, SCHEMA, event));
    return event;
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

  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  it('delivers at the next start an event marked sent but not consumed when the process stopped', async () => {
    const root = uniqueName('jr');
    const event = await write(root);
    const first: string[] = [];
    const dying = await run(root, 'block', first);
    const relay = relayOn(dying);
    await expect(relay.flush()).resolves.toBe(1);
    await relay.close();
    await waitFor(() => first.length === 1, { what: 'the consumer holding the event' });

    const second: string[] = [];
    const bus = await run(root, 'apply', second);
    const relay2 = relayOn(bus);
    await expect(relay2.flush()).resolves.toBe(0);
    await relay2.close();
    await waitFor(async () => (await appliedCount(event.id)) === 1, { what: 'the event applied' });
    await settle();
    expect(second).toEqual([event.id]);
    expect(await appliedCount(event.id)).toBe(1);
    await bus.close();
  });

  it('hands over once a row published but not marked sent before the stop, published again at start', async () => {
    const root = uniqueName('jr');
    const event = await write(root);
    const first: string[] = [];
    const dying = await run(root, 'block', first);
    const relay = relayOn(dying, {
      afterPublish: async () => {
        throw new Error('killed before marking the row');
      },
    });
    await expect(relay.flush()).resolves.toBe(0);
    await relay.close();
    await waitFor(() => first.length === 1, { what: 'the consumer holding the event' });

    const second: string[] = [];
    const republished: string[] = [];
    const bus = await run(root, 'apply', second);
    const relay2 = relayOn(bus, { afterPublish: async (id) => void republished.push(id) });
    await expect(relay2.flush()).resolves.toBe(1);
    await relay2.close();
    await waitFor(async () => (await appliedCount(event.id)) === 1, { what: 'the event applied' });
    await settle();
    // Published again, dropped by its id: the handler ran once in this run.
    expect(republished).toEqual([event.id]);
    expect(second).toEqual([event.id]);
    await bus.close();
  });

  it('never delivers again at start what a consumer settled before the stop', async () => {
    const root = uniqueName('jr');
    const event = await write(root);
    const first: string[] = [];
    const bus = await run(root, 'apply', first);
    const relay = relayOn(bus);
    await relay.flush();
    await relay.close();
    await waitFor(async () => (await appliedCount(event.id)) === 1, { what: 'the event applied' });
    await settle();
    // Abandoned, not closed: nothing is written at a clean stop that a SIGKILL would skip.
    const second: string[] = [];
    const next = await run(root, 'apply', second);
    await settle();
    expect(second).toEqual([]);
    await Promise.all([bus.close(), next.close()]);
  });

  it('keeps the order of a stream across a restart, later messages after the kept ones', async () => {
    const root = uniqueName('jr');
    const early = await write(root);
    const first: string[] = [];
    const dying = await run(root, 'block', first);
    const relay = relayOn(dying);
    await relay.flush();
    await relay.close();
    await waitFor(() => first.length === 1, { what: 'the consumer holding the event' });

    const second: string[] = [];
    const bus = await run(root, 'apply', second);
    const late = await write(root);
    const relay2 = relayOn(bus);
    await relay2.flush();
    await relay2.close();
    await waitFor(() => second.length === 2, { what: 'both events' });
    expect(second).toEqual([early.id, late.id]);
    await bus.close();
  });

  it('drops at start what every consumer settled a week ago, and keeps what is still owed', async () => {
    const root = uniqueName('jt');
    const stream = root.toUpperCase();
    const done = await write(root);
    const applied: string[] = [];
    const bus = await run(root, 'apply', applied);
    const relay = relayOn(bus);
    await relay.flush();
    await waitFor(async () => (await appliedCount(done.id)) === 1, { what: 'the first event applied' });
    await relay.close();
    await bus.close();
    // A message no consumer settled (published while none ran), as old.
    const owed = newEvent('test', `${root}.order.placed.v1`, { order: 2 });
    await db
      .withSchema(JOURNAL)
      .insertInto('bus_messages')
      .values({
        stream,
        seq: 99,
        msg_id: owed.id,
        subject: `${root}.order.placed.v1`,
        data: JSON.stringify(owed),
        headers: '{}',
      })
      .execute();
    await db
      .withSchema(JOURNAL)
      .updateTable('bus_messages')
      .set({ stored_at: new Date(Date.now() - 8 * 86_400_000) })
      .where('stream', '=', stream)
      .execute();
    const next = await run(root, 'apply', []);
    const kept = await db
      .withSchema(JOURNAL)
      .selectFrom('bus_messages')
      .select('seq')
      .where('stream', '=', stream)
      .execute();
    expect(kept.map((r: { seq: number }) => Number(r.seq))).toEqual([99]);
    await next.close();
  });
});
