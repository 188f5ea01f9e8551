import type { Bus } from '@meridian/bus';
import {
  RPC,
  paymentSettleReplySchema,
  paymentVerifyReplySchema,
  supportedReadReplySchema,
  type PaymentCallRequest,
  type PaymentSettleReply,
  type PaymentVerifyReply,
  type Problem,
  type RpcReply,
} from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import type { z } from 'zod';

/** The x402 service as the edge asks it: the challenge's fee payer, verification, settlement. */
export interface X402Client {
  /** The facilitator's fee payer: from memory when known, else asked (a problem when it cannot be). */
  feePayer(): Promise<string | Problem>;
  verify(request: PaymentCallRequest): Promise<RpcReply<PaymentVerifyReply>>;
  settle(request: PaymentCallRequest): Promise<RpcReply<PaymentSettleReply>>;
}

export interface X402ClientSettings {
  network: string;
  /** A fee payer pinned by configuration (X402_FEE_PAYER): the x402 service is not asked for it. */
  feePayer?: string;
  /** Bound on each request to the x402 service (X402_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long a fee payer learnt from the facilitator is used before it is asked again. */
  feePayerTtlMs?: number;
}

const unavailable = (detail: string) => problem('service_unavailable', detail, { retryAfter: 1 });

/**
 * Request/reply to the x402 service. The fee payer is asked once and kept (refreshed in the
 * background after `feePayerTtlMs`, the old one served meanwhile), so a challenge costs no
 * request. A reply that does not parse, a timeout or no x402 service: 503, retryable.
 */
export function x402Client(bus: Bus, settings: X402ClientSettings): X402Client {
  const ttl = settings.feePayerTtlMs ?? 300_000;
  let known: { feePayer: string; at: number } | undefined;
  let asking: Promise<string | Problem> | undefined;
  const ask = (): Promise<string | Problem> =>
    (asking ??= bus
      .request<unknown>(
        RPC.x402SupportedRead,
        { network: settings.network },
        { timeoutMs: settings.timeoutMs },
      )
      .then(
        (reply) => {
          if (!reply.ok)
            return unavailable('The payment facilitator cannot be asked for its terms; try again shortly.');
          const data = supportedReadReplySchema.safeParse(reply.data).data;
          if (!data) return unavailable('The payment service answered something unreadable.');
          known = { feePayer: data.fee_payer, at: Date.now() };
          return data.fee_payer;
        },
        () => unavailable('The payment service is unavailable; try again shortly.'),
      )
      .finally(() => (asking = undefined)));
  const call = async <T>(
    subject: string,
    request: PaymentCallRequest,
    schema: z.ZodType<T>,
  ): Promise<RpcReply<T>> => {
    let reply: RpcReply<unknown>;
    try {
      reply = await bus.request<unknown>(subject, request, { timeoutMs: settings.timeoutMs });
    } catch {
      return { ok: false, problem: unavailable('The payment service is unavailable; try again shortly.') };
    }
    if (!reply.ok) {
      if (reply.problem.status === 402) return reply;
      return { ok: false, problem: unavailable('Payment verification is unavailable; try again shortly.') };
    }
    const data = schema.safeParse(reply.data).data;
    return data === undefined
      ? { ok: false, problem: unavailable('The payment service answered something unreadable.') }
      : { ok: true, data };
  };
  return {
    feePayer: async () => {
      if (settings.feePayer) return settings.feePayer;
      if (known) {
        if (Date.now() - known.at > ttl) void ask();
        return known.feePayer;
      }
      return ask();
    },
    verify: (request) => call(RPC.x402PaymentVerify, request, paymentVerifyReplySchema),
    settle: (request) => call(RPC.x402PaymentSettle, request, paymentSettleReplySchema),
  };
}
