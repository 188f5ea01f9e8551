import { HTTPFacilitatorClient } from '@x402/core/http';
import { FacilitatorTimeoutError, SettleError, VerifyError } from '@x402/core/types';
import type {
  PaymentPayload as X402Payload,
  PaymentRequirements as X402Requirements,
} from '@x402/core/types';
import type { PaymentRequirements, SettleReceipt } from '@meridian/contracts';
import type { PaymentPayload } from '../domain/requirements.js';

/** What the facilitator said about a payment, or that it could not be asked. */
export type VerifyOutcome =
  | { kind: 'valid'; payer: string }
  | { kind: 'invalid'; reason: string; message?: string; payer?: string }
  | { kind: 'unavailable'; detail: string };

export type SettleOutcome =
  | { kind: 'settled'; receipt: SettleReceipt }
  /** The facilitator answered: not settled (transaction '' when nothing was sent). */
  | { kind: 'refused'; receipt: SettleReceipt }
  /** Not reached (refused connection, 5xx): nothing was sent. */
  | { kind: 'unavailable'; detail: string }
  /** No answer within the bound: the outcome is unknown. */
  | { kind: 'unknown'; detail: string };

export interface Facilitator {
  /** The fee payer the facilitator advertises for `network` (its /supported), if any. */
  feePayer(network: string): Promise<string | undefined>;
  verify(payment: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyOutcome>;
  settle(payment: PaymentPayload, requirements: PaymentRequirements): Promise<SettleOutcome>;
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The facilitator over HTTP with x402's own client (`HTTPFacilitatorClient`), every call bounded
 * by `timeoutMs`. Its /supported answer is kept `supportedTtlMs`.
 */
export function httpFacilitator(options: {
  url: string;
  timeoutMs: number;
  supportedTtlMs: number;
}): Facilitator {
  const client = new HTTPFacilitatorClient({ url: options.url, timeoutMs: options.timeoutMs });
  let supported: { at: number; kinds: Map<string, string> } | undefined;
  return {
    async feePayer(network) {
      if (!supported || Date.now() - supported.at > options.supportedTtlMs) {
        const answer = await client.getSupported();
        const kinds = new Map<string, string>();
        for (const kind of answer.kinds) {
          const feePayer = (kind.extra as { feePayer?: unknown } | undefined)?.feePayer;
          if (kind.x402Version === 2 && kind.scheme === 'exact' && typeof feePayer === 'string')
            kinds.set(kind.network, feePayer);
        }
        supported = { at: Date.now(), kinds };
      }
      return supported.kinds.get(network);
    },
    async verify(payment, requirements) {
      try {
        const answer = await client.verify(
          payment as unknown as X402Payload,
          requirements as X402Requirements,
        );
        if (answer.isValid) return { kind: 'valid', payer: answer.payer ?? '' };
        return {
          kind: 'invalid',
          reason: answer.invalidReason ?? 'verification_failed',
          ...(answer.invalidMessage ? { message: answer.invalidMessage } : {}),
          ...(answer.payer ? { payer: answer.payer } : {}),
        };
      } catch (err) {
        if (err instanceof VerifyError)
          return {
            kind: 'invalid',
            reason: err.invalidReason ?? 'verification_failed',
            ...(err.invalidMessage ? { message: err.invalidMessage } : {}),
          };
        return { kind: 'unavailable', detail: describe(err) };
      }
    },
    async settle(payment, requirements) {
      try {
        const answer = await client.settle(
          payment as unknown as X402Payload,
          requirements as X402Requirements,
        );
        const receipt: SettleReceipt = {
          success: answer.success,
          transaction: answer.transaction ?? '',
          network: answer.network ?? requirements.network,
          ...(answer.payer ? { payer: answer.payer } : {}),
          ...(answer.errorReason ? { errorReason: answer.errorReason } : {}),
        };
        return answer.success ? { kind: 'settled', receipt } : { kind: 'refused', receipt };
      } catch (err) {
        if (err instanceof SettleError)
          return {
            kind: 'refused',
            receipt: {
              success: false,
              transaction: err.transaction ?? '',
              network: err.network ?? requirements.network,
              errorReason: err.errorReason ?? 'settlement_failed',
              ...(err.payer ? { payer: err.payer } : {}),
            },
          };
        if (err instanceof FacilitatorTimeoutError) return { kind: 'unknown', detail: describe(err) };
        return { kind: 'unavailable', detail: describe(err) };
      }
    },
  };
}
