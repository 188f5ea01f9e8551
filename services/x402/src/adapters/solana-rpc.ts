import { z } from 'zod';

/** What reconciliation asks the chain: did the transaction of this payment land? */
export interface PaymentChain {
  /**
   * Among the latest transactions of `payer` (the token owner who signed the transfer), the one
   * whose message hash is `paymentId`: its signature and whether it failed; undefined when none is.
   */
  landed(payer: string, paymentId: string): Promise<{ signature: string; failed: boolean } | undefined>;
}

/** How far back a payer's transactions are read: a payment is reconciled within the hour. */
const HISTORY = 100;

const signaturesSchema = z.array(z.object({ signature: z.string(), err: z.unknown().nullable() }));
const transactionSchema = z
  .object({ transaction: z.tuple([z.string(), z.literal('base64')]), meta: z.object({ err: z.unknown() }) })
  .nullable();

/**
 * A Solana node's JSON-RPC (any provider; the URL may carry a key: never logged), read at
 * `finalized`. `messageHash` names a landed transaction as the payment was named at its claim.
 */
export function solanaPaymentChain(
  url: string,
  messageHash: (wireBase64: string) => Promise<string>,
): PaymentChain {
  let id = 0;
  const call = async (method: string, params: unknown[]): Promise<unknown> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`the Solana node answered ${res.status} to ${method}`);
    const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
    if (body.error) throw new Error(`the Solana node refused ${method}: ${body.error.message ?? 'error'}`);
    return body.result;
  };
  return {
    async landed(payer, paymentId) {
      const signatures = signaturesSchema.parse(
        await call('getSignaturesForAddress', [payer, { limit: HISTORY, commitment: 'finalized' }]),
      );
      for (const { signature } of signatures) {
        const tx = transactionSchema.parse(
          await call('getTransaction', [
            signature,
            { encoding: 'base64', commitment: 'finalized', maxSupportedTransactionVersion: 0 },
          ]),
        );
        if (tx && (await messageHash(tx.transaction[0])) === paymentId)
          return { signature, failed: tx.meta.err !== null };
      }
      return undefined;
    },
  };
}
