import type { OutboxTables } from '@meridian/bus';

/** Tables of the `requests` schema. */
export type Database = OutboxTables;
