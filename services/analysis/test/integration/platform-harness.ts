import { randomBytes, randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import request from 'supertest';
import { createNatsBus, type Bus } from '@meridian/bus';
import { answerAsIdentity } from '@meridian/bus/testing';
import { RPC, type BalanceReply, type Report } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { TEST_NATS_URL, startServiceForTest, startTestGround } from '@meridian/runtime/testing';
import {
  runScript,
  startDnsPeer,
  startServiceProcess,
  type DnsPeer,
  type ServiceProcess,
} from '@meridian/test-peers';
import type { AnalysisDeps } from '../../src/deps.js';
import { TIER_STAGES } from '../../src/domain/delivery.js';
import { NothingReachable, type PipelineInput, type RunPipeline } from '../../src/flows/run-pipeline.js';
import { parseConfig } from '../../src/config.js';
import { analysisParts, start } from '../../src/main.js';

export const CREDENTIALS_KEY = randomBytes(32).toString('hex');

/** What the stand-in pipeline does for a domain: how long it takes and whether it throws. */
export interface Behaviour {
  delayMs?: number;
  /** Throws on this many attempts, then succeeds. */
  failTimes?: number;
  /** Throws the pipeline's NothingReachable (the target answers nothing). */
  unreachable?: boolean;
  findings?: Report['findings'];
}

/** A passed check for every stage of the tier the told findings leave out: the stand-in delivers its tier. */
function deliveredStages(input: PipelineInput, told: Report['findings']): Report['findings'] {
  return TIER_STAGES[input.tier]
    .filter((stage) => !told.some((f) => f.category === stage))
    .map((stage) => ({
      id: `${stage}.stand-in`,
      category: stage,
      title: `${stage} checks ran`,
      severity: 'info' as const,
      outcome: 'passed' as const,
      passed: true,
      evidence: 'stand-in',
      remediation: '',
      score_modifier: 0,
    }));
}

/** A pipeline that writes a trace and answers a small report, as told per domain; it records its inputs. */
export function standInPipeline(behaviours: Map<string, Behaviour>, seen: PipelineInput[]): RunPipeline {
  const failures = new Map<string, number>();
  return async (_deps, input, trace) => {
    seen.push(input);
    const b = behaviours.get(input.domain) ?? {};
    await trace('dns', 'started', `resolving ${input.domain}`);
    if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
    if (b.unreachable)
      throw new NothingReachable(`${input.domain} has no public address the scanner may reach`);
    const failed = failures.get(input.run_id) ?? 0;
    if (failed < (b.failTimes ?? 0)) {
      failures.set(input.run_id, failed + 1);
      throw new Error('scanner exploded');
    }
    await trace('dns', 'finished', 'records read');
    return {
      run_id: input.run_id,
      domain: input.domain,
      tier: input.tier,
      status: 'succeeded',
      started_at: null,
      finished_at: null,
      score: 90,
      grade: 'A-',
      summary: 'stand-in',
      findings: [...(b.findings ?? []), ...deliveredStages(input, b.findings ?? [])],
      changes: null,
      review: null,
    };
  };
}

export interface Analysis {
  deps: AnalysisDeps;
  app: RequestListener;
  close(): Promise<void>;
}

export interface Platform {
  env: Record<string, string>;
  dns: DnsPeer;
  client: Bus;
  databaseUrl: string;
  behaviours: Map<string, Behaviour>;
  seen: PipelineInput[];
  /** The first replica (API and worker). */
  a: Analysis;
  /** Another replica on the same database and bus. */
  replica(env?: Record<string, string>, pipeline?: RunPipeline): Promise<Analysis>;
  as(accountId: string): Promise<Record<string, string>>;
  /** Credit by billing:admin, named by `operator` (the answered identity's operator unless given). */
  grant(accountId: string, amount: number, operator?: string): Promise<void>;
  balance(accountId: string): Promise<number>;
  subscribe(accountId: string, tier: string): Promise<void>;
  /** Adds and verifies a domain for the account through the routes and the DNS zone. */
  verified(accountId: string, domain: string): Promise<void>;
  close(): Promise<void>;
}

/** Analysis's environment: the common settings, the DNS zone, slow sweeps, then the test's own. */
function analysisEnvOf(
  common: Record<string, string>,
  dns: DnsPeer,
  env: Record<string, string>,
): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    ...common,
    DNS_SERVERS: dns.address,
    CREDENTIALS_KEY,
    RUN_ACK_WAIT_MS: '1500',
    RUN_SWEEP_MS: '3600000',
    RESCAN_POLL_MS: '3600000',
    ...env,
  };
}

const OPERATOR = 'operator@analysis.test';
/** Identity's answers when the test starts none: every account exists, OPERATOR holds the role. */
const IDENTITY = { operators: new Map([[OPERATOR, '00000000-0000-4000-8000-00000000a11a']]) };

/** Credit granted as an operator does, through billing's admin script. */
async function grantByOperator(
  env: Record<string, string>,
  accountId: string,
  amount: number,
  operator = OPERATOR,
): Promise<void> {
  const args = ['grant', '--operator', operator, '--account', accountId, '--amount', String(amount)];
  const run = await runScript(
    'services/billing/scripts/admin.ts',
    [...args, '--note', `t${randomUUID()}`],
    env,
  );
  if (run.code !== 0) throw new Error(run.stderr);
}

/** A subscription to `tier`, bought from billing directly. */
async function subscribe(billingUrl: string, headers: Record<string, string>, tier: string): Promise<void> {
  const res = await fetch(`${billingUrl}/v1/audit/subscribe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ tier }),
  });
  if (res.status !== 200) throw new Error(`subscribe answered ${res.status}: ${await res.text()}`);
}

/** Adds the domain through the routes, publishes its TXT record in the zone, and verifies it. */
async function verifyDomain(
  a: Analysis,
  dns: DnsPeer,
  headers: Record<string, string>,
  domain: string,
): Promise<void> {
  const added = await request(a.app).post('/v1/analysis/domains').set(headers).send({ domain });
  if (added.status !== 201 && added.status !== 200) throw new Error(JSON.stringify(added.body));
  const { name, value } = added.body.data.verification;
  dns.zone.TXT.set(name, [...(dns.zone.TXT.get(name) ?? []), value]);
  const checked = await request(a.app).get(`/v1/analysis/verify?domain=${domain}`).set(headers);
  if (!checked.body.data?.verified) throw new Error(`not verified: ${JSON.stringify(checked.body)}`);
}

/**
 * Analysis as main.ts assembles it (with a stand-in pipeline), billing as its own process, a DNS
 * zone on loopback, on a fresh database and a private NATS namespace.
 */
export async function startPlatform(
  prefix: string,
  env: Record<string, string> = {},
  /** `real`: the test starts identity itself, so the bus must not answer for it. */
  identity: 'answered' | 'real' = 'answered',
): Promise<Platform> {
  const ground = await startTestGround(prefix);
  const common = ground.env;
  const dns = await startDnsPeer();
  const billing: ServiceProcess = await startServiceProcess('services/billing/src/main.ts', {
    ...common,
    DEPOSIT_ADDRESS: 'Dep1t5WaLLet1111111111111111111111111111111',
  });
  const analysisEnv = analysisEnvOf(common, dns, env);
  const behaviours = new Map<string, Behaviour>();
  const seen: PipelineInput[] = [];
  const open: Analysis[] = [];
  const replica = async (more: Record<string, string> = {}, pipeline?: RunPipeline): Promise<Analysis> => {
    const env = { ...analysisEnv, ...more };
    // The service's own parts, made here so that a test can read them (open streams, watchers).
    const parts = analysisParts(parseConfig(env), {
      pipeline: pipeline ?? standInPipeline(behaviours, seen),
    });
    const started = await startServiceForTest((e) => start(e, undefined, parts), ground, env);
    const { service } = started;
    const one = {
      deps: { ...service.deps, ...parts } as unknown as AnalysisDeps,
      app: service.app,
      close: () => started.close(),
    };
    open.push(one);
    return one;
  };
  const a = await replica();
  const client = await createNatsBus({
    url: TEST_NATS_URL,
    name: 'analysis-test-client',
    namespace: ground.namespace,
    logger: createLogger('analysis-test-client', { level: 'warn' }),
    metrics: createMetrics('analysis-test-client', { defaultMetrics: false }),
  });
  if (identity === 'answered') await answerAsIdentity(client, IDENTITY);
  const as = (accountId: string) =>
    callerHeaders({ account_id: accountId, auth: 'session', session_id: randomUUID(), plan: 'free' });
  return {
    env: analysisEnv,
    dns,
    client,
    databaseUrl: ground.databaseUrl,
    behaviours,
    seen,
    a,
    replica,
    as,
    grant: (accountId, amount, operator) => grantByOperator(common, accountId, amount, operator),
    balance: async (accountId) => {
      const reply = await client.request<BalanceReply>(RPC.billingBalanceRead, { account_id: accountId });
      if (!reply.ok) throw new Error(reply.problem.detail);
      return reply.data.balance_atomic;
    },
    subscribe: async (accountId, tier) => subscribe(billing.url, await as(accountId), tier),
    verified: async (accountId, domain) => verifyDomain(a, dns, await as(accountId), domain),
    close: async () => {
      await client.close();
      for (const one of open.reverse()) await one.close().catch(() => undefined);
      await billing.close();
      await dns.close();
      await ground.close();
    },
  };
}
