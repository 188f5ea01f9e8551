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
