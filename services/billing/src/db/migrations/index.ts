import type { Migrations } from '@meridian/db';
import * as outbox from './2026_11_21_0001_outbox.js';
import * as ledger from './2026_11_25_0001_ledger.js';
import * as operatorActions from './2026_11_27_0001_operator_actions.js';
import * as accounts from './2026_12_02_0001_accounts.js';
import * as operatorLogChain from './2026_12_02_0100_operator_log_chain.js';

export const migrations: Migrations = {
  '2026_11_21_0001_outbox': outbox,
  '2026_11_25_0001_ledger': ledger,
  '2026_11_27_0001_operator_actions': operatorActions,
  '2026_12_02_0001_accounts': accounts,
  '2026_12_02_0100_operator_log_chain': operatorLogChain,
};
