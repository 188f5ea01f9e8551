import type { OutboxTables } from '@meridian/bus';

/** Tables of the `billing` schema. */
export type Database = OutboxTables;
