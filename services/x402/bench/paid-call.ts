/**
 * What our pay-per-call path adds over the facilitator's own time, as a ratio:
 *   (1) the facilitator's own time: /verify + /settle measured inside the facilitator process
 *   (2) a bare seller: x402's HTTPFacilitatorClient calling /verify then /settle, nothing else
 *   (3) our path: a paid GET through the gateway (a process), the x402 service (rpc verify:
 *       decode, match, replay read, facilitator; rpc settle: claim row, facilitator, settled row +
 *       outbox event) and a stub data service answering at once
 * Every call pays a new transaction, signed before timing starts; calls run one after the other.
 * Run: npx -y pnpm@10 bench x402   (BENCH_CALLS, default 100)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { X402_MAX_TIMEOUT_S } from '@meridian/contracts';
import { startServiceForTest } from '@meridian/runtime/testing';
import { startServiceProcess, startX402Facilitator, type LocalWallet } from '@meridian/test-peers';
import { start } from '../src/main.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 100);
const PATH = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
const ENVELOPE = JSON.stringify({
  data: { symbol: 'BTC-USD', price: 1, venues: [] },
  meta: { as_of: new Date().toISOString(), venues: [], staleness_ms: 0, confidence: 1 },
  provenance: { sources: [], method: 'bench stub' },
});

function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { mean, p50: sorted[Math.floor(sorted.length / 2)]!, p90: sorted[Math.floor(sorted.length * 0.9)]! };
}

const fmt = (s: { mean: number; p50: number; p90: number }) =>
  `mean ${s.mean.toFixed(1)} ms, p50 ${s.p50.toFixed(1)}, p90 ${s.p90.toFixed(1)}`;

type Summary = ReturnType<typeof summary>;

/** The three paths side by side: the facilitator alone (1), a bare seller (2), ours (3). */
function printFigures(f: Summary, b: Summary, o: Summary): void {
  process.stdout.write(
    [
      `x402 paid call, ${CALLS} sequential calls each (LiteSVM facilitator in its own process)`,
      `  (1) facilitator's own verify+settle:       ${fmt(f)}`,
      `  (2) bare seller: facilitator over HTTP:     ${fmt(b)}`,
      `  (3) ours: gateway + x402 service + stub:    ${fmt(o)}`,
      `  added by our path over (1): ${(o.mean - f.mean).toFixed(1)} ms a call; ratio (3)/(1) mean ${(o.mean / f.mean).toFixed(2)}, p50 ${(o.p50 / f.p50).toFixed(2)}`,
      `  added by our path over (2): ${(o.mean - b.mean).toFixed(1)} ms a call; ratio (3)/(2) mean ${(o.mean / b.mean).toFixed(2)}, p50 ${(o.p50 / b.p50).toFixed(2)}`,
      '',
    ].join('\n'),
  );
}

/** The data service's place: answers every call with the same envelope, at once. */
async function startDataStub(): Promise<Server> {
  const stub = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(ENVELOPE);
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  return stub;
}

/** Each paid call through the gateway in turn, timed to its whole answer (ms). */
async function timePaidCalls(url: string, headers: string[]): Promise<number[]> {
  const times: number[] = [];
  for (const header of headers) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { 'payment-signature': header } });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (res.status !== 200 || !res.headers.get('payment-response'))
      throw new Error(`paid call answered ${res.status}`);
  }
  return times;
}

export async function run(): Promise<void> {
  const facilitator = await startX402Facilitator();
  const stub = await startDataStub();
  const started = await startServiceForTest(start, 'bench_x402', { FACILITATOR_URL: facilitator.url });
  const gateway = await startServiceProcess('gateway/src/main.ts', {
    ...started.ground.env,
    DATA_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
    X402_NETWORK: facilitator.network,
    X402_PAY_TO: facilitator.payTo,
    METRICS_PORT: '0',
  });
  try {
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: facilitator.network as `${string}:${string}`,
      amount: '10000',
      asset: facilitator.mint,
      payTo: facilitator.payTo,
      maxTimeoutSeconds: X402_MAX_TIMEOUT_S,
      extra: { feePayer: facilitator.feePayer },
    };
    const buyer: LocalWallet = await facilitator.wallet({ usdc: 100_000_000 });
    const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(buyer.secretKey));
    const scheme = new ExactSvmScheme(signer, { rpcUrl: facilitator.rpcUrl });
    const payment = async (): Promise<PaymentPayload> => ({
      x402Version: 2,
      resource: { url: `${gateway.url}${PATH}`, mimeType: 'application/json', description: '' },
      accepted: requirements,
      payload: (await scheme.createPaymentPayload(2, requirements)).payload,
    });
    const encode = (p: PaymentPayload) => Buffer.from(JSON.stringify(p)).toString('base64');

    // Warm-up: the gateway learns the fee payer, connections open, code paths are compiled.
    for (let i = 0; i < 5; i++)
      await fetch(`${gateway.url}${PATH}`, { headers: { 'payment-signature': encode(await payment()) } });

    const direct = new HTTPFacilitatorClient({ url: facilitator.url, timeoutMs: 10_000 });
    const bare: number[] = [];
    const bareSigned = await Promise.all(Array.from({ length: CALLS }, payment));
    const before = await facilitator.timings();
    for (const p of bareSigned) {
      const t0 = performance.now();
      const verified = await direct.verify(p, requirements);
      const settled = verified.isValid ? await direct.settle(p, requirements) : undefined;
      bare.push(performance.now() - t0);
      if (!settled?.success) throw new Error('the bare seller did not settle');
    }
    const after = await facilitator.timings();
    const own = (from: typeof before, to: typeof after) =>
      to.verify.slice(from.verify.length).map((v, i) => v + (to.settle[from.settle.length + i] ?? 0));
    const ownBare = own(before, after);

    const headers = (await Promise.all(Array.from({ length: CALLS }, payment))).map(encode);
    const ours = await timePaidCalls(`${gateway.url}${PATH}`, headers);
    const ownOurs = own(after, await facilitator.timings());
    printFigures(summary([...ownBare, ...ownOurs]), summary(bare), summary(ours));
  } finally {
    await gateway.close();
    await started.close();
    stub.close();
    await facilitator.close();
  }
}

if (process.argv[1]?.endsWith('paid-call.ts')) void run().then(() => process.exit(0));
