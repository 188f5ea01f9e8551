import type { Kysely } from 'kysely';
import { createOutboxTables } from '@meridian/bus';

/** Frozen. The outbox of this service's events and the ids of the events it has applied. */
export async function up(db: Kysely<any>): Promise<void> {
  await createOutboxTables(db, 'analysis');
}
