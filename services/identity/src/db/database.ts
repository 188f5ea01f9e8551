import type { OperatorActionsTable } from '@meridian/db';
import type { Generated } from 'kysely';
import type { OutboxTables } from '@meridian/bus';
import type { Plan } from '@meridian/contracts';
import type { TwoFactorState } from '../domain/totp.js';

/** Tables of the `identity` schema. */
export interface Database extends OutboxTables {
  accounts: {
    id: string;
    /** Null for an account made by an identity provider that vouched for no email. */
    email: string | null;
    email_confirmed_at: Date | null;
    /** bcrypt of the pre-hashed password; null for provider-only accounts. */
    password_hash: string | null;
    /** Set by the mailbox's proven owner (confirmation page, reset); null when only a sign-up chose it. */
    password_proven_at: Generated<Date | null>;
    plan: Generated<Plan>;
    plan_changed_at: Date | null;
    /** Bumped each time every session of the account ends at once (a password reset). */
    sessions_epoch: Generated<number>;
    nickname: string | null;
    totp_state: Generated<TwoFactorState>;
    /** AES-256-GCM sealed base32 secret. */
    totp_secret_sealed: string | null;
    totp_last_step: number | null;
    created_at: Generated<Date>;
  };
  email_tokens: {
    token_hash: string;
    account_id: string;
    purpose: 'confirm' | 'reset' | 'unlock';
    expires_at: Date;
    used_at: Date | null;
    created_at: Generated<Date>;
  };
  sessions: {
    id: string;
    account_id: string;
    token_hash: string;
    method: 'password' | 'oidc';
    created_at: Date;
    last_seen_at: Date;
    expires_at: Date;
    revoked_at: Date | null;
    /** When the session last passed the second factor (login with a TOTP code, or a step-up). */
    second_factor_at: Date | null;
  };
  login_challenges: {
    token_hash: string;
    account_id: string;
    expires_at: Date;
    attempts: Generated<number>;
    used_at: Date | null;
    /** The first factor given: the session the challenge ends in is of this method. */
    method: Generated<'password' | 'oidc'>;
  };
  recovery_codes: {
    account_id: string;
    code_hash: string;
    used_at: Date | null;
  };
  api_keys: {
    id: string;
    account_id: string;
    prefix: string;
    salt: string;
    secret_hash: string;
    created_at: Generated<Date>;
    last_used_at: Date | null;
    revoked_at: Date | null;
  };
  login_throttle: {
    scope: string;
    failures: number;
    last_failure_at: Date;
    blocked_until: Date | null;
  };
  mail_outbox: {
    id: string;
    seq: Generated<number>;
    recipient: string;
    subject: string;
    /** Cleared once sent over SMTP or given up on, so links with live tokens do not stay in the database. */
    body: string | null;
    created_at: Generated<Date>;
    sent_at: Date | null;
    attempts: Generated<number>;
    /** The relay sending it, until when: a lease that runs out (a crashed replica) is retaken. */
    lease_owner: string | null;
    lease_until: Date | null;
  };
  /** Accounts holding the operator role. */
  operator_roles: {
    account_id: string;
    granted_at: Date;
    granted_by: string;
  };
  /** Append-only (a trigger refuses UPDATE and DELETE). */
  operator_actions: OperatorActionsTable;
  oidc_links: {
    issuer: string;
    subject: string;
    account_id: string;
    created_at: Generated<Date>;
  };
  /** A provider identity waiting for its account owner's consent, given by the mailed link. */
  oidc_link_offers: {
    token_hash: string;
    account_id: string;
    issuer: string;
    subject: string;
    expires_at: Date;
    used_at: Date | null;
    created_at: Generated<Date>;
  };
  /** Browsers an account signed in from: the SHA-256 of the device cookie's token. */
  known_devices: {
    token_hash: string;
    account_id: string;
    created_at: Generated<Date>;
    last_signed_in_at: Date;
  };
  /** Client addresses an account signed in from. */
  known_addresses: {
    account_id: string;
    address: string;
    last_signed_in_at: Date;
  };
  oidc_flows: {
    browser_hash: string;
    provider: string;
    state: string;
    nonce: string;
    code_verifier: string;
    expires_at: Date;
    used_at: Date | null;
  };
}
