import type { Migrations } from '@meridian/db';
import * as outbox from './2026_11_21_0001_outbox.js';
import * as identity from './2026_11_22_0001_identity.js';
import * as challengeMethod from './2026_11_23_0001_challenge_method.js';
import * as mailLease from './2026_11_24_0001_mail_lease.js';
import * as dropConfirmationSentAt from './2026_11_25_0001_drop_confirmation_sent_at.js';
import * as passwordProven from './2026_11_25_0002_password_proven.js';
import * as knownSignIns from './2026_11_27_0001_known_sign_ins.js';
import * as operators from './2026_11_27_0001_operators.js';
import * as sessionsEpoch from './2026_11_27_0001_sessions_epoch.js';
import * as linkOffers from './2026_11_27_0002_link_offers.js';
import * as secondFactorAt from './2026_12_02_0001_second_factor_at.js';
import * as operatorLogChain from './2026_12_02_0100_operator_log_chain.js';

export const migrations: Migrations = {
  '2026_11_21_0001_outbox': outbox,
  '2026_11_22_0001_identity': identity,
  '2026_11_23_0001_challenge_method': challengeMethod,
  '2026_11_24_0001_mail_lease': mailLease,
  '2026_11_25_0001_drop_confirmation_sent_at': dropConfirmationSentAt,
  '2026_11_25_0002_password_proven': passwordProven,
  '2026_11_27_0001_known_sign_ins': knownSignIns,
  '2026_11_27_0001_operators': operators,
  '2026_11_27_0001_sessions_epoch': sessionsEpoch,
  '2026_11_27_0002_link_offers': linkOffers,
  '2026_12_02_0001_second_factor_at': secondFactorAt,
  '2026_12_02_0100_operator_log_chain': operatorLogChain,
};
