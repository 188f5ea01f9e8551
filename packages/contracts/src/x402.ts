import { z } from 'zod';

/** x402 pay-per-call (data-api-interface 4.4): protocol version 2, USDC on Solana mainnet. */
export const X402_VERSION = 2;
/** CAIP-2 id of Solana mainnet: `solana:` and the first 32 characters of its genesis hash. */
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
/** The USDC mint on Solana mainnet (6 decimals). */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/**
 * CAIP-2 id of Solana devnet, where tests and staging pay: `solana:` and the first 32 characters of
 * its genesis hash EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG (the id @x402/svm uses too).
 */
export const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
/** The USDC mint of each Solana network we accept; a deposit is recognised by this address, never by a symbol. */
export const USDC_MINTS: Readonly<Record<string, string>> = {
  [SOLANA_MAINNET]: USDC_MINT,
  [SOLANA_DEVNET]: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
};
/** Atomic units of USDC: a latest or statistic read, and a time-series read. */
export const X402_PRICES = { read: 10_000, series: 20_000 } as const;
export const X402_MAX_TIMEOUT_S = 60;
/** Key of the discovery extension in `extensions` (the x402 `bazaar` extension). */
export const X402_DISCOVERY_EXTENSION = 'bazaar';

export const X402_HEADERS = {
  paymentRequired: 'payment-required',
  paymentSignature: 'payment-signature',
  paymentLegacy: 'x-payment',
  paymentResponse: 'payment-response',
} as const;

export const paymentRequirementsSchema = z.object({
  scheme: z.literal('exact'),
  network: z.string().regex(/^[a-z0-9-]+:[A-Za-z0-9]+$/),
  amount: z.string().regex(/^\d+$/),
  asset: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().int(),
  extra: z.object({ feePayer: z.string() }),
});
export type PaymentRequirements = z.infer<typeof paymentRequirementsSchema>;

export const paymentRequiredSchema = z.object({
  x402Version: z.literal(X402_VERSION),
  error: z.string(),
  resource: z.object({
    url: z.string(),
    mimeType: z.literal('application/json'),
    description: z.string().optional(),
  }),
  accepts: z.array(paymentRequirementsSchema).min(1),
  extensions: z.record(
    z.string(),
    z.object({ info: z.record(z.string(), z.unknown()), schema: z.record(z.string(), z.unknown()) }),
  ),
});
export type PaymentRequired = z.infer<typeof paymentRequiredSchema>;

/**
 * The x402 service's request/reply bodies and event (subjects in subjects.ts). The gateway builds
 * the requirements of the call (its price, our network, asset, recipient and fee payer) and sends
 * them with the payment header as the client sent it; the x402 service decodes the header,
 * matches it against them, guards against replay and talks to the facilitator.
 */
const paymentHeader = z.string().min(1).max(65_536);

/** rpc.x402.supported.read.v1: the facilitator's fee payer for our network (from its /supported). */
export const supportedReadRequestSchema = z.object({ network: z.string() });
export const supportedReadReplySchema = z.object({ network: z.string(), fee_payer: z.string() });
export type SupportedReadReply = z.infer<typeof supportedReadReplySchema>;

/** rpc.x402.payment.verify.v1 and rpc.x402.payment.settle.v1: the same request. */
export const paymentCallRequestSchema = z.object({
  /** The PAYMENT-SIGNATURE (or X-PAYMENT) header, base64 as received. */
  header: paymentHeader,
  /** The URL the payment buys (resource.url of the challenge). */
  resource: z.string().min(1).max(4096),
  requirements: paymentRequirementsSchema,
});
export type PaymentCallRequest = z.infer<typeof paymentCallRequestSchema>;

export const paymentVerifyReplySchema = z.object({
  /** The payment's id: hash of the transaction message, unique per payment. */
  payment_id: z.string(),
  payer: z.string(),
});
export type PaymentVerifyReply = z.infer<typeof paymentVerifyReplySchema>;

/** The settlement receipt, as x402's SettleResponse (the PAYMENT-RESPONSE header, base64 of JSON). */
export const settleReceiptSchema = z.object({
  success: z.boolean(),
  transaction: z.string(),
  network: z.string(),
  payer: z.string().optional(),
  errorReason: z.string().optional(),
});
export type SettleReceipt = z.infer<typeof settleReceiptSchema>;

/** Reply of the settle subject: the receipt; `success: false` is a refused or unsettled payment. */
export const paymentSettleReplySchema = z.object({ payment_id: z.string(), receipt: settleReceiptSchema });
export type PaymentSettleReply = z.infer<typeof paymentSettleReplySchema>;

/** Why a payment was not accepted: the x402 reason and a sentence, in a 402 problem's detail. */
export const X402_REASONS = [
  'payment_undecodable',
  'unsupported_version',
  'requirements_mismatch',
  'amount_mismatch',
  'recipient_mismatch',
  'asset_mismatch',
  'network_mismatch',
  'fee_payer_mismatch',
  'resource_mismatch',
  'payment_replayed',
  'verification_failed',
  'settlement_failed',
  'settlement_pending',
] as const;
export type X402Reason = (typeof X402_REASONS)[number];

/** x402.payment.settled.v1: a payment that settled on chain and bought one call. */
export const paymentSettledSchema = z.object({
  payment_id: z.string(),
  payer: z.string(),
  amount_atomic: z.number().int().positive(),
  asset: z.string(),
  network: z.string(),
  pay_to: z.string(),
  resource: z.string(),
  transaction: z.string(),
  settled_at: z.string(),
});
export type PaymentSettled = z.infer<typeof paymentSettledSchema>;

/** rpc.x402.payments.unreconciled.list.v1: oldest first, at most `limit`. */
export const unreconciledListRequestSchema = z.object({
  limit: z.number().int().min(1).max(500).default(100),
});
/** A payment left open (a crash, a pending settlement) that reconciliation could not close. */
export const unreconciledPaymentSchema = z.object({
  payment_id: z.string(),
  payer: z.string().nullable(),
  amount_atomic: z.number().int(),
  asset: z.string(),
  network: z.string(),
  pay_to: z.string(),
  resource: z.string(),
  /** The signature when a transaction is known, else null. */
  transaction: z.string().nullable(),
  /** Why it could not be closed, in words. */
  reason: z.string().nullable(),
  created_at: z.string(),
  checked_at: z.string().nullable(),
});
export const unreconciledListReplySchema = z.object({ payments: z.array(unreconciledPaymentSchema) });
export type UnreconciledListReply = z.infer<typeof unreconciledListReplySchema>;
