import type { OutboxTables } from '@meridian/bus';

/** Tables of the `x402` schema. */
export type Database = OutboxTables;
