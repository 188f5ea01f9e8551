import { ok, refuse, type Result } from '@meridian/contracts';
import { insertOperatorAction, markRequest } from '../db/repositories/service-requests.js';
import type { RequestsDeps } from '../deps.js';

export interface RequestMark {
  id: number;
  status: 'open' | 'reviewed' | 'closed';
  note: string | null;
}

/**
 * An operator marks a service request (open, reviewed, closed) with an optional note; the mark
 * and its line in the append-only operator log are written in one transaction. The console route
 * and requests:admin both mark through it, with the operator's checked account id.
 */
export async function markRequestByOperator(
  deps: Pick<RequestsDeps, 'db'>,
  operatorAccountId: string,
  mark: RequestMark,
  at = new Date(),
): Promise<Result<RequestMark & { reviewed_by: string; reviewed_at: string }, 'not_found'>> {
  const actor = `operator:${operatorAccountId}`;
  return deps.db.transaction().execute(async (trx) => {
    const marked = await markRequest(
      trx,
      mark.id,
      { status: mark.status, operator_note: mark.note, reviewed_by: actor },
      at,
    );
    if (!marked) return refuse('not_found', `No service request has the id ${mark.id}.`);
    await insertOperatorAction(trx, {
      at,
      actor,
      action: `request.mark.${mark.status}`,
      target: `request:${mark.id}`,
      reason: mark.note ?? '',
    });
    return ok({ ...mark, reviewed_by: actor, reviewed_at: at.toISOString() });
  });
}
