import type { Migrations } from '@meridian/db';
import * as outbox from './2026_11_21_0001_outbox.js';
import * as requests from './2026_11_25_0001_requests.js';
import * as bookingIdempotency from './2026_11_27_0001_booking_idempotency.js';
import * as operatorActions from './2026_11_27_0001_operator_actions.js';
import * as operatorLogChain from './2026_12_02_0100_operator_log_chain.js';

export const migrations: Migrations = {
  '2026_11_21_0001_outbox': outbox,
  '2026_11_25_0001_requests': requests,
  '2026_11_27_0001_booking_idempotency': bookingIdempotency,
  '2026_11_27_0001_operator_actions': operatorActions,
  '2026_12_02_0100_operator_log_chain': operatorLogChain,
};
