/** Payments of a paid route signed ahead of the load, each used once. */
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { X402Facilitator } from '@meridian/test-peers/x402-facilitator';
import { expectStatus } from './account.js';

/** `count` payments of the challenge of `path`, each a transfer signed by x402's client, base64. */
export async function signedPayments(
  gateway: string,
  facilitator: X402Facilitator,
  path: string,
  count: number,
): Promise<string[]> {
  const challenge = (await (
    await expectStatus(await fetch(`${gateway}${path}`), 402, 'the challenge')
  ).json()) as {
    resource: unknown;
    accepts: Record<string, unknown>[];
  };
  const requirements = challenge.accepts[0]!;
  const wallet = await facilitator.wallet({ usdc: Number(requirements.amount) * (count + 10) });
  const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(wallet.secretKey));
  const scheme = new ExactSvmScheme(signer, { rpcUrl: facilitator.rpcUrl });
  const out: string[] = [];
  while (out.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(16, count - out.length) }, async () => {
        const partial = await scheme.createPaymentPayload(2, requirements as never);
        const payload = {
          x402Version: 2,
          resource: challenge.resource,
          accepted: requirements,
          payload: partial.payload,
        };
        return Buffer.from(JSON.stringify(payload)).toString('base64');
      }),
    );
    out.push(...batch);
  }
  return out;
}
