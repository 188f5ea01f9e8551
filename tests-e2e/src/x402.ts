import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { LocalWallet, X402Facilitator } from '@meridian/test-peers';

/**
 * x402's official client (`@x402/fetch` with the exact SVM scheme) paying from `wallet` on the
 * local facilitator's chain, over a fetch that records every payment header it sends.
 */
export async function payingFetch(facilitator: X402Facilitator, wallet: LocalWallet) {
  const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(wallet.secretKey));
  const client = new x402Client().register(
    'solana:*',
    new ExactSvmScheme(signer, { rpcUrl: facilitator.rpcUrl }),
  );
  const sent: string[] = [];
  const recording: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get('payment-signature');
    if (header) sent.push(header);
    return fetch(request);
  };
  return { pay: wrapFetchWithPayment(recording, client), sent };
}
