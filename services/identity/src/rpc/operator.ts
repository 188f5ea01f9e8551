import { operatorResolveRequestSchema, type OperatorResolveReply, type RpcReply } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import type { IdentityDeps } from '../deps.js';
import { resolveOperator } from '../flows/resolve-operator.js';

/**
 * rpc.identity.operator.resolve.v1: who the operator an email names is, for another service's
 * operator command (billing:admin, requests:admin). 403 `operator_required` for an account without
 * the role, 404 for no such email.
 */
export async function operatorResolve(
  deps: IdentityDeps,
  input: unknown,
): Promise<RpcReply<OperatorResolveReply>> {
  const parsed = operatorResolveRequestSchema.safeParse(input);
  if (!parsed.success) return { ok: false, problem: problem('validation_failed', 'email: an email address') };
  const operator = await resolveOperator(deps.db, parsed.data.email);
  if (operator.ok) return { ok: true, data: operator.value };
  if (operator.code === 'not_found')
    return { ok: false, problem: problem('not_found', 'No account has that email.') };
  return {
    ok: false,
    problem: problem('forbidden', 'That account does not hold the operator role.', {
      category: 'operator_required',
    }),
  };
}
