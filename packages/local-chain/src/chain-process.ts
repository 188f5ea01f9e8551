/**
 * The local chain and its x402 facilitator as one process (facilitator/serve.ts): `pnpm
 * x402:facilitator`, the child `startLocalChainProcess` launches, and so the chain `pnpm start`
 * starts at its first paid call or deposit. Prints one JSON line `{"ready": {...}}` on stdout once
 * it listens.
 *
 * Settings: `PORT` (0: any; `pnpm x402:facilitator` listens on 4020, the x402 service's default
 * FACILITATOR_URL), `HOST`; `X402_PAY_TO`, the seller's address whose token account the chain
 * opens (default a new key); `X402_FEE_PAYER_KEY_FILE`, a kept key pair (kept-keys.ts) that pays
 * the fees (default a new key); `LOCAL_CHAIN_TOKEN_ACCOUNTS`, owners (comma-separated) whose token
 * accounts are opened at the start; `X402_FACILITATOR_CHILD`: exit when stdin ends (its parent went).
 */
import { Keypair } from '@solana/web3.js';
import { serveLocalChain } from './facilitator/serve.js';
import { readKept } from './kept-keys.js';

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const feePayerFile = env.X402_FEE_PAYER_KEY_FILE;
  const served = await serveLocalChain({
    port: Number(env.PORT ?? (env.npm_lifecycle_event === 'x402:facilitator' ? 4020 : 0)),
    host: env.HOST ?? '127.0.0.1',
    ...(env.X402_PAY_TO ? { payTo: env.X402_PAY_TO } : {}),
    ...(feePayerFile ? { feePayer: Keypair.fromSecretKey(readKept(feePayerFile).secretKey) } : {}),
    tokenAccounts: (env.LOCAL_CHAIN_TOKEN_ACCOUNTS ?? '').split(',').filter(Boolean),
  });
  process.stdout.write(`${JSON.stringify({ ready: { url: served.url, ...served.info } })}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void served.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  if (env.X402_FACILITATOR_CHILD) {
    process.stdin.once('end', stop);
    process.stdin.resume();
  }
}

main(process.env).catch((err: unknown) => {
  process.stderr.write(`local chain: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
