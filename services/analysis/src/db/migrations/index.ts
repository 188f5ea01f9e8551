import type { Migrations } from '@meridian/db';
import * as outbox from './2026_11_21_0001_outbox.js';
import * as platform from './2026_11_25_0001_platform.js';
import * as shareLinks from './2026_11_25_0900_share_links.js';
import * as reviews from './2026_11_27_0001_reviews.js';
import * as refundAmount from './2026_11_27_1600_refund_amount.js';
import * as withholdFileEvidence from './2026_11_27_1610_withhold_file_evidence.js';
import * as runsAccountStarted from './2026_11_27_1630_runs_account_started.js';
import * as operatorLogChain from './2026_12_02_0100_operator_log_chain.js';
import * as withholdGitSectionCredentials from './2026_12_02_0130_withhold_git_section_credentials.js';

export const migrations: Migrations = {
  '2026_11_21_0001_outbox': outbox,
  '2026_11_25_0001_platform': platform,
  '2026_11_25_0900_share_links': shareLinks,
  '2026_11_27_0001_reviews': reviews,
  '2026_11_27_1600_refund_amount': refundAmount,
  '2026_11_27_1610_withhold_file_evidence': withholdFileEvidence,
  '2026_11_27_1630_runs_account_started': runsAccountStarted,
  '2026_12_02_0100_operator_log_chain': operatorLogChain,
  '2026_12_02_0130_withhold_git_section_credentials': withholdGitSectionCredentials,
};
