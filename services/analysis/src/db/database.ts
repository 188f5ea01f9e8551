import type { OperatorActionsTable } from '@meridian/db';
import type { Generated } from 'kysely';
import type { OutboxTables } from '@meridian/bus';
import type { Report } from '@meridian/contracts';
import type { Audience } from '../domain/share.js';

/** Tables of the `analysis` schema. */
export interface Database extends OutboxTables {
  domains: {
    id: string;
    account_id: string;
    hostname: string;
    token: string;
    created_at: Date;
    verified_at: Date | null;
    checked_at: Date | null;
  };
  runs: {
    id: string;
    account_id: string;
    domain_id: string;
    domain: string;
    tier: string;
    status: string;
    payment: string;
    amount_atomic: number;
    pay: {
      amount_atomic: number;
      deposit_address: string;
      memo: string;
      asset: string;
      network: string;
    } | null;
    idempotency_key: string | null;
    origin: string;
    rescan_week: string | null;
    attempts: Generated<number>;
    worker: string | null;
    lease_until: Date | null;
    created_at: Date;
    queued_at: Date | null;
    started_at: Date | null;
    finished_at: Date | null;
    error: string | null;
    refund: string | null;
    /** What went back to the account, once billing settled the refund. */
    refund_atomic: number | null;
    /** The finished Report (packages/contracts reportSchema); the reports routes read it. */
    report: Report | null;
  };
  /** One per audit_review run: recorded by an operator, or marked overdue (and refunded) by the job. */
  reviews: {
    run_id: string;
    note: string | null;
    author_account_id: string | null;
    /** The author's public nickname, or email, when the review was recorded. */
    author: string | null;
    reviewed_at: Date | null;
    overdue_at: Date | null;
  };
  /** Append-only (a trigger refuses UPDATE and DELETE). */
  operator_actions: OperatorActionsTable;
  trace_events: {
    run_id: string;
    seq: number;
    at: Date;
    stage: string;
    status: string;
    message: string;
  };
  authorizations: {
    id: string;
    account_id: string;
    domain_id: string;
    attested_by: string;
    statement: string;
    /** Scope entries as the pipeline reads them, and the request cap of a run. */
    scope: { entries: string[]; max_requests: number };
    created_at: Date;
    expires_at: Date;
    revoked_at: Date | null;
  };
  credentials: {
    id: string;
    account_id: string;
    domain_id: string;
    kind: string;
    label: string;
    username: string | null;
    login_url: string | null;
    secret_sealed: string;
    created_at: Date;
  };
  rescans: {
    domain_id: string;
    account_id: string;
    tier: string;
    enabled: boolean;
    next_due_at: Date;
    last_run_id: string | null;
    updated_at: Date;
  };
  share_links: {
    id: Generated<number>;
    token_hash: string;
    run_id: string;
    account_id: string;
    audience: Audience;
    expires_at: Date | null;
    revoked_at: Date | null;
    created_at: Date;
  };
}
