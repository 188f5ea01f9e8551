import type { z } from 'zod';
import {
  RPC,
  paymentCallRequestSchema,
  supportedReadRequestSchema,
  unreconciledListRequestSchema,
  type Problem,
  type Result,
} from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { resultHandler, type RpcRegistration } from '@meridian/runtime';
import type { X402Deps } from '../deps.js';
import { settlePayment } from '../flows/settle-payment.js';
import { listUnreconciled } from '../flows/reconcile-payments.js';
import { verifyPayment } from '../flows/verify-payment.js';

/**
 * A refusal as the gateway receives it: a payment refused is a 402 whose category is x402's
 * reason (the gateway answers the challenge again with it); the facilitator not reached is a 503.
 */
export function problemOf(code: string, detail: string): Problem {
  switch (code) {
    case 'facilitator_unavailable':
      return problem('service_unavailable', detail, { category: 'facilitator_unavailable', retryAfter: 1 });
    case 'validation_failed':
      return problem('validation_failed', detail);
    case 'not_found':
      return problem('not_found', detail);
    default:
      return problem('payment_required', detail, { category: code });
  }
}

const handler = <S extends z.ZodType, T>(schema: S, run: (input: z.infer<S>) => Promise<Result<T>>) =>
  resultHandler(schema, run, (refusal) => problemOf(refusal.code, refusal.detail));

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
