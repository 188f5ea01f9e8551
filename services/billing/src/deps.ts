import type { Bus } from '@meridian/bus';
import type { ServiceDeps } from '@meridian/runtime';
import type { Config } from './config.js';
import type { Database } from './db/database.js';

/** What every part of this service gets: the chassis' deps (no parts of its own yet). */
export type BillingDeps = ServiceDeps<Database, Config>;

export const SERVICE = 'billing';

let lent: Bus | undefined;

/**
 * The bus of the billing service running in this process, for the operators' commands that
 * process runs (billing:admin through DATA_DIR's command socket, on the in-process bus that no
 * other process can reach). Answers the function that takes it back.
 */
export function lendBus(bus: Bus): () => Promise<void> {
  lent = bus;
  return async () => {
    if (lent === bus) lent = undefined;
  };
}

export const lentBus = (): Bus | undefined => lent;
