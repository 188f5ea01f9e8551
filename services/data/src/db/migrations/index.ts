import type { Migrations } from '@meridian/db';
import * as outbox from './2026_11_21_0001_outbox.js';
import * as marketTables from './2026_11_21_0101_market_tables.js';
import * as observations from './2026_11_21_0102_observations.js';
import * as hotQueryIndexes from './2026_11_21_0301_hot_query_indexes.js';
import * as combinedRollups from './2026_11_22_0103_combined_rollups.js';
import * as connectorLeases from './2026_11_25_0104_connector_leases.js';
import * as combinedMinutes from './2026_12_02_0105_combined_minutes.js';

export const migrations: Migrations = {
  '2026_11_21_0001_outbox': outbox,
  '2026_11_21_0101_market_tables': marketTables,
  '2026_11_21_0102_observations': observations,
  '2026_11_21_0301_hot_query_indexes': hotQueryIndexes,
  '2026_11_22_0103_combined_rollups': combinedRollups,
  '2026_11_25_0104_connector_leases': connectorLeases,
  '2026_12_02_0105_combined_minutes': combinedMinutes,
};
