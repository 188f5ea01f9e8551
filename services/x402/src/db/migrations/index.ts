import type { Migrations } from '@meridian/db';
import * as outbox from './2026_11_21_0001_outbox.js';
import * as payments from './2026_11_25_0001_payments.js';
import * as reconciliation from './2026_11_27_0001_reconciliation.js';

export const migrations: Migrations = {
  '2026_11_21_0001_outbox': outbox,
  '2026_11_25_0001_payments': payments,
  '2026_11_27_0001_reconciliation': reconciliation,
};
