import type { OutboxTables } from '@meridian/bus';

/** Tables of the `analysis` schema. */
export type Database = OutboxTables;
