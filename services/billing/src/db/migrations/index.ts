import type { Migrations } from '@meridian/db';
import * as outbox from './2026_11_21_0001_outbox.js';

export const migrations: Migrations = {
  '2026_11_21_0001_outbox': outbox,
};
