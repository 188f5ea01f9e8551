/**
 * `pnpm x402:pay <url>`: pays one call with x402's official client (`@x402/fetch`, SVM exact
 * scheme) against the local facilitator and its chain (the one `pnpm start` starts at the first
 * paid call, or `pnpm x402:facilitator`), then prints the answer and the decoded receipt. The buyer
 * is a new wallet the local chain funds with 1 USDC, unless X402_BUYER_KEY (base58 secret key)
 * names one.
 *
 * Where: the facilitator of the running `pnpm start`, found in `DATA_DIR/local-chain.json` (DATA_DIR
 * default `.data`) as `deposit:pay` finds it, since its port is whichever was free at start;
 * `X402_FACILITATOR_URL` overrides it.
 */
import { join } from 'node:path';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { readLocalChain } from './local-deposit.js';

/** The local facilitator's URL: the one named, else the one the running system wrote down. */
function facilitatorOf(env: NodeJS.ProcessEnv): string | undefined {
  const named = env.X402_FACILITATOR_URL ?? readLocalChain(env.DATA_DIR ?? '.data')?.facilitator_url;
  return named?.replace(/\/+$/, '');
}

async function main(): Promise<number> {
  const url = process.argv[2];
  if (!url) {
    process.stderr.write('usage: pnpm x402:pay <url>\n');
    return 2;
  }
  const facilitator = facilitatorOf(process.env);
  if (!facilitator) {
    process.stderr.write(
      `x402:pay: no local facilitator is known in ${join(process.env.DATA_DIR ?? '.data', 'local-chain.json')}: start the system with npx -y pnpm@10 start (same DATA_DIR), or set X402_FACILITATOR_URL\n`,
    );
    return 2;
  }
  const local = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${facilitator}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`the local facilitator answered ${res.status} to ${path}`);
    return (await res.json()) as T;
  };
  const info = await local<{ rpc_url: string; network: string }>('/local/info');
  const secretKey =
    process.env.X402_BUYER_KEY ??
    (await local<{ secret_key: string }>('/local/wallet', { usdc: 1_000_000 })).secret_key;
  const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(secretKey));
  const client = new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: info.rpc_url }));
  const pay = wrapFetchWithPayment(fetch, client);
  const res = await pay(url);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // printed as text
  }
  const header = res.headers.get('payment-response');
  const receipt = header ? decodePaymentResponseHeader(header) : null;
  process.stdout.write(
    `${JSON.stringify({ status: res.status, payer: signer.address, network: info.network, receipt, body }, null, 2)}\n`,
  );
  return res.ok && receipt?.success ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`x402:pay failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
