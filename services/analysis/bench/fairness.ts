/**
 * Nobody stalls the analysis service, in two figures, analysis and billing each a process of its
 * own on one database and NATS, the real pipeline auditing local sites (a DNS zone on loopback, an
 * HTTP site answering at once, and stalling ones that answer each request after 1.5 s):
 *   a well-behaved account's run, commission to finish, p50 and p99, with the queue full of other
 *     accounts' runs on stalling sites  vs  the same run alone (as a ratio)
 *   CPU of the analysis process with S trace streams open, then dropped (half of them while the
 *     run is looked up)  vs  the process idle before (goal: idle again within a second of the drop)
 * Run: npx -y pnpm@10 bench analysis-fairness (BENCH_STREAMS, BENCH_GREEDY, BENCH_RUNS change the sizes).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type ClientRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callerHeaders } from '@meridian/http-kit/testing';
import { startTestGround } from '@meridian/runtime/testing';
import { freePort, runScript, startDnsPeer, startServiceProcess, type DnsPeer } from '@meridian/test-peers';
import { cpuSeconds } from '../../../bench/support.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 500);
/** Accounts that fill the queue with runs on stalling sites (each up to the per-account cap, 5). */
const GREEDY = Number(process.env.BENCH_GREEDY ?? 2);
/** Runs of the well-behaved account, alone and then behind the greedy ones. */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DEADLINE_MS = 3000;

/** One HTTP site for every audited name: `stall-*` names answer each request after 1.5 s. */
async function startSites(): Promise<Server> {
  const server = createServer((req, res) => {
    const answer = () =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title>');
    if ((req.headers.host ?? '').startsWith('stall-')) setTimeout(answer, 1500);
    else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * p) - 1]!;

interface Api {
  as(account: string): Promise<Record<string, string>>;
  call<T = { id: string }>(
    account: string,
    method: string,
    path: string,
    body?: object,
  ): Promise<{ status: number; body: { data: T } }>;
}

function apiOf(analysisUrl: string, billingUrl: string): Api {
  const as = (account: string) =>
    callerHeaders({ account_id: account, auth: 'session', session_id: randomUUID(), plan: 'free' });
  return {
    as,
    call: async <T>(account: string, method: string, path: string, body?: object) => {
      const base = path.startsWith('/v1/audit/subscribe') ? billingUrl : analysisUrl;
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(await as(account)) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as { data: T } };
    },
  };
}

/** A subscribed account with a verified domain. */
async function account(api: Api, dns: DnsPeer, databaseUrl: string, domain: string): Promise<string> {
  const id = randomUUID();
  const granted = await runScript(
    'services/billing/scripts/admin.ts',
    ['grant', '--operator', 'bench', '--account', id, '--amount', '100000000', '--note', `b${randomUUID()}`],
    { DATABASE_URL: databaseUrl },
  );
  if (granted.code !== 0) throw new Error(granted.stderr);
  const sub = await api.call(id, 'POST', '/v1/audit/subscribe', { tier: 'audit_base' });
  if (sub.status !== 200) throw new Error(`subscribe: ${sub.status}`);
  const added = await api.call<{ verification: { name: string; value: string } }>(
    id,
    'POST',
    '/v1/analysis/domains',
    {
      domain,
    },
  );
  const { name, value } = added.body.data.verification;
  dns.zone.TXT.set(name, [value]);
  dns.zone.A.set(domain, ['127.0.0.1']);
  const checked = await api.call<{ verified: boolean }>(id, 'GET', `/v1/analysis/verify?domain=${domain}`);
  if (!checked.body.data?.verified) throw new Error(`${domain} not verified`);
  return id;
}

/** Commissions a run and waits for it to finish; answers the milliseconds it took. */
async function turnaround(api: Api, id: string, domain: string): Promise<number> {
  const t0 = performance.now();
  const made = await api.call(id, 'POST', '/v1/analysis/run', { domain, tier: 'audit_base' });
  if (made.status !== 201) throw new Error(`run: ${made.status} ${JSON.stringify(made.body)}`);
  for (;;) {
    const runs = await api.call<{ id: string; status: string }[]>(
      id,
      'GET',
      `/v1/analysis/reports?domain=${domain}`,
    );
    const run = runs.body.data.find((r) => r.id === made.body.data.id);
    if (run?.status === 'succeeded' || run?.status === 'failed') return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** CPU of the process over `ms`, as a share of one core. */
async function cpuShare(pid: number, ms: number): Promise<number> {
  const c0 = cpuSeconds(pid);
  await new Promise((r) => setTimeout(r, ms));
  return (cpuSeconds(pid) - c0) / (ms / 1000);
}

async function streamsFigure(
  api: Api,
  url: string,
  pid: number,
  owner: string,
  runId: string,
): Promise<void> {
  // Past the start's own work (compiling, the first relay and consumer rounds).
  await new Promise((r) => setTimeout(r, 2000));
  const idle = await cpuShare(pid, 1000);
  const headers = { ...(await api.as(owner)), accept: 'text/event-stream' };
  const requests: ClientRequest[] = [];
  await Promise.all(
    Array.from({ length: STREAMS }, (_, i) => {
      const req = httpRequest(`${url}/v1/analysis/report/${runId}/trace`, { headers, agent: false });
      req.on('error', () => undefined);
      requests.push(req);
      // Half leave as soon as their request is sent: while the run is looked up.
      if (i % 2 === 1) return new Promise<void>((r) => req.end(() => (req.destroy(), r())));
      return new Promise<void>((r) => {
        req.on('response', () => r());
        req.end();
      });
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  const open = await cpuShare(pid, 1000);
  for (const req of requests) req.destroy();
  const first = await cpuShare(pid, 1000);
  const second = await cpuShare(pid, 1000);
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  console.log(`  trace streams: ${STREAMS} opened (${STREAMS / 2} left during the lookup), then all dropped`);
  console.log(`    CPU of analysis idle before            ${pct(idle)}`);
  console.log(`    CPU with the streams open, settled     ${pct(open)}`);
  console.log(`    CPU 0-1 s after the last drop          ${pct(first)}`);
  console.log(`    CPU 1-2 s after the last drop          ${pct(second)}`);
}

/** GREEDY accounts asking six runs each of stalling sites; how many the cap let queue. */
async function queueGreedyRuns(api: Api, dns: DnsPeer, databaseUrl: string): Promise<number> {
  const greedy = await Promise.all(
    Array.from({ length: GREEDY }, (_, g) => account(api, dns, databaseUrl, `stall-${g}.bench`)),
  );
  let queued = 0;
  for (const [g, id] of greedy.entries())
    for (let i = 0; i < 6; i++) {
      const made = await api.call(id, 'POST', '/v1/analysis/run', {
        domain: `stall-${g}.bench`,
        tier: 'audit_base',
      });
      if (made.status === 201) queued++;
    }
  return queued;
}

export async function run(): Promise<void> {
  const ground = await startTestGround('analysis_bench', 'silent');
  const common = ground.env;
  const dns = await startDnsPeer();
  const sites = await startSites();
  const billing = await startServiceProcess('services/billing/src/main.ts', {
    ...common,
    DEPOSIT_ADDRESS: 'Dep1t5WaLLet1111111111111111111111111111111',
  });
  const analysis = await startServiceProcess('services/analysis/src/main.ts', {
    ...common,
    DNS_SERVERS: dns.address,
    CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    SCANNER_ALLOW_LOOPBACK: 'true',
    SCANNER_HTTP_PORT: String((sites.address() as AddressInfo).port),
    SCANNER_HTTPS_PORT: String(await freePort()),
    SCANNER_TIMEOUT_MS: '2000',
    RUN_TIMEOUT_MS: String(DEADLINE_MS),
    RUN_DEADLINE_MS: String(DEADLINE_MS),
    TRACE_STREAMS_PER_RUN: String(STREAMS),
    TRACE_STREAMS_PER_ACCOUNT: String(STREAMS),
  });
  const api = apiOf(analysis.url, billing.url);
  try {
    console.log(`analysis-fairness: one worker, runs bounded at ${DEADLINE_MS} ms, local sites`);
    const polite = await account(api, dns, ground.databaseUrl, 'polite.bench');
    // A run that stays unpaid (a deposit quote) keeps its streams open as long as they are wanted.
    const unpaid = await api.call(polite, 'POST', '/v1/analysis/run', {
      domain: 'polite.bench',
      tier: 'audit_base',
      payment: 'deposit',
    });
    await streamsFigure(api, analysis.url, analysis.pid, polite, unpaid.body.data.id);

    const alone: number[] = [];
    for (let i = 0; i < RUNS; i++) alone.push(await turnaround(api, polite, 'polite.bench'));
    const queued = await queueGreedyRuns(api, dns, ground.databaseUrl);
    const behind: number[] = [];
    for (let i = 0; i < RUNS; i++) behind.push(await turnaround(api, polite, 'polite.bench'));
    const ms = (x: number) => `${x.toFixed(0)} ms`;
    console.log(
      `  a well-behaved account's run, commission to finish (${RUNS} runs each; p99 is their slowest)`,
    );
    console.log(
      `    alone                                  p50 ${ms(percentile(alone, 0.5))}  p99 ${ms(percentile(alone, 0.99))}`,
    );
    console.log(
      `    behind ${queued} runs of ${GREEDY} accounts on stalling sites (${GREEDY * 6 - queued} refused by the cap)`,
    );
    console.log(
      `                                           p50 ${ms(percentile(behind, 0.5))}  p99 ${ms(percentile(behind, 0.99))}`,
    );
    const ratio = (p: number) => (percentile(behind, p) / percentile(alone, p)).toFixed(1);
    console.log(`    ratio                                  p50 ${ratio(0.5)}x  p99 ${ratio(0.99)}x`);
    // Turns go round the accounts: a run waits one slot per other account with runs queued.
    console.log(
      `    round robin: at most ${GREEDY} slots of ${DEADLINE_MS} ms ahead; first come, first served: ${queued}`,
    );
  } finally {
    await analysis.close();
    await billing.close();
    await dns.close();
    await new Promise((r) => sites.close(r));
    await ground.close();
  }
}
