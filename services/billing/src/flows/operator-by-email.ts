import {
  RPC,
  accountEmailReplySchema,
  ok,
  operatorResolveReplySchema,
  refuse,
  type AccountEmailReply,
  type OperatorResolveReply,
  type Result,
} from '@meridian/contracts';
import type { BillingRefusal } from '../domain/refusals.js';
import type { BillingDeps } from '../deps.js';

/** An operator whose role identity has checked: the actor of what they do. */
export interface CheckedOperator {
  account_id: string;
  email: string | null;
}

/**
 * The operator an operator's command names by email, as identity answers it: only an account
 * holding the operator role (else `operator_required`, whatever identity's reason: no such
 * account, or no role), so a command can never act in the name of someone who is not one.
 */
export async function operatorByEmail(
  deps: Pick<BillingDeps, 'bus'>,
  email: string,
): Promise<Result<CheckedOperator, Extract<BillingRefusal, 'operator_required' | 'identity_unavailable'>>> {
  const asked = await deps.bus.request<OperatorResolveReply>(RPC.identityOperatorResolve, { email });
  if (!asked.ok && (asked.problem.status === 403 || asked.problem.status === 404))
    return refuse('operator_required', `${email} is not an operator; nothing was written.`);
  const reply = asked.ok ? operatorResolveReplySchema.safeParse(asked.data) : undefined;
  if (!reply?.success)
    return refuse(
      'identity_unavailable',
      `Identity did not say whether ${email} is an operator; nothing was written.`,
    );
  return ok({ account_id: reply.data.account_id, email: reply.data.email });
}

/** How an operator is named in the ledger (`actor`): by account id, which never changes. */
export const operatorActor = (operator: CheckedOperator): string => `operator:${operator.account_id}`;

/**
 * How an operator is named in the operator log: the actor as in the ledger, and the account and
 * email identity checked in the row's own columns (part of its hash).
 */
export const operatorLogged = (operator: CheckedOperator) => ({
  actor: operatorActor(operator),
  operator: operator.email ? { account_id: operator.account_id, email: operator.email } : undefined,
});

/**
 * The operator of a console request: the account the gateway's assertion names (its role and
 * second factor checked there), with its email from identity for the log when identity answers.
 */
export async function consoleOperator(
  deps: Pick<BillingDeps, 'bus'>,
  accountId: string,
): Promise<CheckedOperator> {
  const asked = await deps.bus.request<AccountEmailReply>(RPC.identityAccountEmail, {
    account_id: accountId,
  });
  const reply = asked.ok ? accountEmailReplySchema.safeParse(asked.data) : undefined;
  return { account_id: accountId, email: reply?.success ? reply.data.email : null };
}
