import { z } from 'zod';
import { planSchema } from './caller.js';

/** rpc.identity.key.verify.v1 — request and reply data. Unknown or revoked keys reply a 401 problem. */
export const keyVerifyRequestSchema = z.object({ key: z.string().min(1).max(512) });
export const keyVerifyReplySchema = z.object({
  account_id: z.string(),
  key_id: z.string(),
  plan: planSchema,
});
export type KeyVerifyReply = z.infer<typeof keyVerifyReplySchema>;

/** rpc.identity.session.verify.v1 — request and reply data. Unknown, expired or revoked sessions reply 401. */
export const sessionVerifyRequestSchema = z.object({ token: z.string().min(1).max(2048) });
export const sessionVerifyReplySchema = z.object({
  account_id: z.string(),
  session_id: z.string(),
  plan: planSchema,
  role: z.enum(['operator']).optional(),
  totp_active: z.boolean().optional(),
  /** When this session last passed the second factor (ISO 8601), null when it never did. */
  second_factor_at: z.iso.datetime().nullable().optional(),
  /** How many times every session of the account was ended at once, when this one was vouched for. */
  sessions_epoch: z.number().int().min(0).default(0),
});

/**
 * Identity's answer to a password reset names `<account_id> <sessions_epoch>` in it for the gateway
 * that carries the answer (which removes it): every replica stops vouching for the account's
 * cached sessions before the client learns of the reset.
 */
export const SESSIONS_EPOCH_HEADER = 'x-sessions-epoch';
export type SessionVerifyReply = z.infer<typeof sessionVerifyReplySchema>;

/** Event payloads (the `data` of the CloudEvent). No secret, no password, no key material. */
export const accountCreatedSchema = z.object({
  account_id: z.string(),
  plan: planSchema,
  created_at: z.string(),
});
export const accountPlanChangedSchema = z.object({
  account_id: z.string(),
  plan: planSchema,
  changed_at: z.string(),
});
export const keyCreatedSchema = z.object({
  key_id: z.string(),
  account_id: z.string(),
  prefix: z.string(),
  created_at: z.string(),
});
export const keyRevokedSchema = z.object({
  key_id: z.string(),
  account_id: z.string(),
  revoked_at: z.string(),
});
export const sessionRevokedSchema = z.object({
  session_id: z.string(),
  account_id: z.string(),
  revoked_at: z.string(),
});

/** billing.plan.changed.v1 — billing announces the plan an account is entitled to. */
export const billingPlanChangedSchema = z.object({
  account_id: z.string(),
  plan: planSchema,
  changed_at: z.string(),
});

/** Name of the session cookie the gateway and identity agree on. */
export const SESSION_COOKIE = 'meridian_session';

/** rpc.identity.account.email.v1 */
export const accountEmailRequestSchema = z.object({ account_id: z.uuid() });
export const accountEmailReplySchema = z.object({
  account_id: z.string(),
  email: z.string().nullable(),
  /** The public nickname, if set (a review names its author by it). */
  nickname: z.string().nullable().optional(),
});
export type AccountEmailReply = z.infer<typeof accountEmailReplySchema>;

/**
 * rpc.identity.operator.resolve.v1: an operator's command names its operator by email; identity
 * answers who that is only when the account holds the operator role (else a 403 problem with
 * error_category `operator_required`, or 404 `not_found` for no such account).
 */
export const operatorResolveRequestSchema = z.object({ email: z.email() });
export const operatorResolveReplySchema = z.object({
  account_id: z.string(),
  email: z.string(),
  /** The public nickname, if set. */
  nickname: z.string().nullable(),
});
export type OperatorResolveReply = z.infer<typeof operatorResolveReplySchema>;
