import { expect } from '@jest/globals';
import { openDatabase } from '@meridian/db';
import { eventually } from './eventually.js';
import type { streamReader } from './streams.js';

/**
 * The faults test's checks once the system has recovered, read from each service's schema and
 * from the streams: every event in its stream once, applied once by each consumer, each booking
 * paid and mailed once.
 */

/** Each service's schema, opened on the system's database for the checks after recovery. */
export function openSchemas(url: string) {
  const open = <T>(schema: string) => openDatabase<T>({ kind: 'pg', url, poolSize: 1 }, schema);
  return {
    identity: open<OutboxOnly>('identity'),
    billing: open<BillingTables>('billing'),
    requests: open<RequestsTables>('requests'),
    analysis: open<OutboxOnly>('analysis'),
    x402: open<OutboxOnly>('x402'),
    data: open<OutboxOnly>('data'),
  };
}

type Schemas = ReturnType<typeof openSchemas>;
type Schema = keyof Schemas;
type Reader = Awaited<ReturnType<typeof streamReader>>;
type OutboxRows = Awaited<ReturnType<typeof outboxOf>>;

export const STREAMS = {
  identity: 'IDENTITY',
  billing: 'BILLING',
  requests: 'REQUESTS',
  analysis: 'ANALYSIS',
  x402: 'X402',
  data: 'DATA',
} as const;

const DURABLES = [
  ['BILLING', 'identity__plan_changed'],
  ['BILLING', 'requests__order_paid'],
  ['BILLING', 'analysis__order_paid'],
  ['REQUESTS', 'identity__booking_confirmed'],
] as const;

function outboxOnly(dbs: Schemas, schema: Schema) {
  return (dbs[schema] as ReturnType<typeof openDatabase<OutboxOnly>>).db;
}

function outboxOf(dbs: Schemas, schema: Schema) {
  return outboxOnly(dbs, schema)
    .selectFrom('outbox')
    .select(['id', 'subject', 'payload', 'sent_at'])
    .orderBy('seq')
    .execute();
}

/** Quiet: every outbox relayed, every durable consumer caught up with nothing unacknowledged. */
export async function waitUntilQuiet(dbs: Schemas, reader: Reader): Promise<void> {
  await eventually(async () => {
    for (const schema of Object.keys(dbs) as Schema[])
      if ((await outboxOf(dbs, schema)).some((r) => r.sent_at === null)) return false;
    for (const [stream, durable] of DURABLES) {
      const state = await reader.durable(stream, durable);
      if (state.pending > 0 || state.ackPending > 0) return false;
    }
    return true;
  }, 60_000);
}

/** Every stream holds each event of its service's outbox exactly once: no copy, no gap. */
export async function expectEachEventOnce(dbs: Schemas, reader: Reader) {
  const outboxes = new Map<string, OutboxRows>();
  let events = 0;
  for (const [schema, stream] of Object.entries(STREAMS) as Array<[Schema, string]>) {
    const rows = await outboxOf(dbs, schema);
    outboxes.set(schema, rows);
    const { ids } = await reader.contents(stream);
    expect({ stream, copies: ids.filter((id, i) => ids.indexOf(id) !== i) }).toEqual({
      stream,
      copies: [],
    });
    expect({ stream, ids: [...ids].sort() }).toEqual({ stream, ids: rows.map((r) => r.id).sort() });
    events += ids.length;
  }
  expect(await reader.messages('DEADLETTER')).toBe(0);
  return { outboxes, events };
}

/**
 * Each consumer applied each event of its filter once (processed_events, recorded in the
 * transaction of the change).
 */
export async function expectAppliedOnce(dbs: Schemas, outboxes: Map<string, OutboxRows>): Promise<void> {
  const billingRows = outboxes.get('billing')!;
  const ofType = (rows: OutboxRows, subject: string) => rows.filter((r) => r.subject === subject);
  const ids = (rows: OutboxRows) => rows.map((r) => r.id).sort();
  const orderOf = (r: OutboxRows[number]) => (r.payload as { data: { order_id: string } }).data.order_id;
  const processed = async (schema: Schema, consumer: string) =>
    (
      await outboxOnly(dbs, schema)
        .selectFrom('processed_events')
        .select('event_id')
        .where('consumer', '=', consumer)
        .execute()
    )
      .map((r) => r.event_id)
      .sort();
  expect(await processed('identity', 'identity__plan_changed')).toEqual(
    ids(ofType(billingRows, 'billing.plan.changed.v1')),
  );
  expect(await processed('identity', 'identity__booking_confirmed')).toEqual(
    ids(ofType(outboxes.get('requests')!, 'requests.booking.confirmed.v1')),
  );
  expect(await processed('requests', 'requests__order_paid')).toEqual(
    ids(ofType(billingRows, 'billing.order.paid.v1').filter((r) => orderOf(r).startsWith('booking-'))),
  );
}

/** Bookings: each one answered 201 is confirmed, paid by one debit, and mailed once. */
export async function expectBookingsPaidOnce(
  dbs: Schemas,
  mails: ReadonlyArray<{ text: string }>,
  booked: readonly string[],
): Promise<number> {
  const bookings = await dbs.requests.db.selectFrom('bookings').select(['id', 'status']).execute();
  const debits = await dbs.billing.db
    .selectFrom('ledger_entries')
    .select(['order_id', 'delta_atomic'])
    .where('reason', '=', 'booking')
    .execute();
  for (const b of bookings.filter((x) => x.status === 'confirmed')) {
    expect({ booking: b.id, debits: debits.filter((d) => d.order_id === b.id).length }).toEqual({
      booking: b.id,
      debits: 1,
    });
    expect({ booking: b.id, mails: mails.filter((m) => m.text.includes(b.id)).length }).toEqual({
      booking: b.id,
      mails: 1,
    });
  }
  expect(booked.filter((id) => !bookings.some((b) => b.id === id && b.status === 'confirmed'))).toEqual([]);
  // No debit for a booking that is not confirmed.
  const confirmed = new Set(bookings.filter((x) => x.status === 'confirmed').map((b) => b.id));
  expect(debits.filter((d) => !confirmed.has(d.order_id!))).toEqual([]);
  return bookings.length;
}

/** The columns the checks read, of each service's own schema. */
interface OutboxOnly {
  outbox: { id: string; seq: number; subject: string; payload: unknown; sent_at: Date | null };
  processed_events: { consumer: string; event_id: string };
}
export interface BillingTables extends OutboxOnly {
  balances: { account_id: string; balance_atomic: number };
  ledger_entries: { account_id: string; delta_atomic: number; reason: string; order_id: string | null };
}
interface RequestsTables extends OutboxOnly {
  bookings: { id: string; status: string };
}
