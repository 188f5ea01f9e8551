import type { z } from 'zod';
import {
  RPC,
  paymentCallRequestSchema,
  supportedReadRequestSchema,
  unreconciledListRequestSchema,
  type Result,
} from '@meridian/contracts';
import { refusalProblem } from '@meridian/http-kit';
import { resultHandler, type RpcRegistration } from '@meridian/runtime';
import type { X402Deps } from '../deps.js';
import type { X402Refusal } from '../domain/refusals.js';
import { settlePayment } from '../flows/settle-payment.js';
import { listUnreconciled } from '../flows/reconcile-payments.js';
import { verifyPayment } from '../flows/verify-payment.js';
import { X402_PROBLEMS } from './answer.js';

const handler = <S extends z.ZodType, T>(
  schema: S,
  run: (input: z.infer<S>) => Promise<Result<T, X402Refusal>>,
) => resultHandler(schema, run, (refusal) => refusalProblem(X402_PROBLEMS, refusal));

/** The gateway's subjects (the fee payer for the challenge, verification, settlement) and the operators' list. */
export function rpcHandlers(deps: X402Deps): RpcRegistration[] {
  return [
    {
      subject: RPC.x402SupportedRead,
      handler: handler(supportedReadRequestSchema, async ({ network }) => {
        let feePayer: string | undefined;
        try {
          feePayer = await deps.facilitator.feePayer(network);
        } catch {
          return {
            ok: false,
            code: 'facilitator_unavailable',
            detail: 'The payment facilitator is unavailable.',
          };
        }
        if (!feePayer)
          return {
            ok: false,
            code: 'not_found',
            detail: `The facilitator does not support exact payments on ${network}.`,
          };
        return { ok: true, value: { network, fee_payer: feePayer } };
      }),
    },
    {
      subject: RPC.x402PaymentVerify,
      handler: handler(paymentCallRequestSchema, (req) => verifyPayment(deps, req)),
    },
    {
      subject: RPC.x402PaymentSettle,
      handler: handler(paymentCallRequestSchema, (req) => settlePayment(deps, req)),
    },
    {
      subject: RPC.x402PaymentsUnreconciledList,
      handler: handler(unreconciledListRequestSchema, (req) => listUnreconciled(deps, req)),
    },
  ] as RpcRegistration[];
}
