import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createNatsBus, type Bus, type Closable } from '@meridian/bus';
import { EVENTS, STREAMS } from '@meridian/contracts';
import { openDatabase, type OpenDatabase } from '@meridian/db';
import { startDnsPeer, startSmtp, type DnsPeer, type ServiceProcess } from '@meridian/test-peers';
import {
  createKey,
  commandEnv,
  grantCredit,
  operatorOf,
  postJson,
  type SignedIn,
  signedInAccount,
} from './src/accounts.js';
import { served, timed, type AnalysisTables, type Answer, type BillingTables } from './src/replicas.js';
import { startSite, type Site } from './src/site.js';
import { startSystem, type System } from './src/system.js';

/**
 * Scale-out and faults: two replicas of data and of analysis behind two gateways
 * (each gateway given both URLs of each: gateway/README.md, Replicas of a service). Under load,
 * both replicas of each serve (their own /metrics say so); then one replica of each is SIGKILLed
 * while reads and runs are in flight, and every accepted request is honoured.
 */

const DOMAIN = 'shop.replicas-e2e.example';
const RUN_PRICE = 9_000_000;
const GRANT = 300_000_000;
/** Concurrent readers through each gateway. */
const READERS_PER_GATEWAY = 6;
/** Runs commissioned before the kill, and after it. */
const RUNS_BEFORE = 6;
const RUNS_AFTER = 3;

describe('two replicas of data and analysis, one of each killed under load', () => {
  let system: System;
  let gateways: string[];
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let dns: DnsPeer;
  let site: Site;
  let bus: Bus;
  let paidConsumer: Closable;
  let analysisDb: OpenDatabase<AnalysisTables>;
  let billingDb: OpenDatabase<BillingTables>;
  let account: SignedIn;
  let accountId: string;
  let key: string;
  /** billing.order.paid.v1 as a consumer of the stream sees them, by order (run) id. */
  const paidEvents = new Map<string, number>();
  const startedAt = Date.now();
  let systemUp = 0;

  beforeAll(async () => {
    smtp = await startSmtp();
    dns = await startDnsPeer();
    site = await startSite();
    dns.zone.A.set(DOMAIN, ['127.0.0.1']);
    system = await startSystem(
      'e2e_replicas',
      {
        SMTP_URL: smtp.url,
        LOG_LEVEL: 'info',
        DNS_SERVERS: dns.address,
        SCANNER_ALLOW_LOOPBACK: 'true',
        SCANNER_HTTP_PORT: String(site.port),
        SCANNER_HTTPS_PORT: '9',
        SCANNER_TIMEOUT_MS: '2000',
        // A killed worker's job comes back (and its lease runs out) after 3 s, not 30.
        RUN_ACK_WAIT_MS: '3000',
        // The readers are one account on one address: neither budget is under test here.
        RATE_LIMITS: 'free=1000000',
        // One account commissions every run, more at once than an account's fair share of the queue.
        RUN_QUEUED_PER_ACCOUNT: '50',
        MAX_IN_FLIGHT_PER_CLIENT: '512',
      },
      { replicas: { data: 2, analysis: 2 } },
    );
    systemUp = Date.now();
    const secondGateway = system.addGateway();
    bus = await createNatsBus({
      url: system.env.NATS_URL!,
      name: 'e2e-replicas',
      namespace: system.env.BUS_NAMESPACE,
    });
    await bus.ensureStream(STREAMS.billing);
    paidConsumer = await bus.consume<{ order_id: string }>({
      stream: STREAMS.billing.name,
      durable: 'e2e__replicas_paid',
      filterSubject: EVENTS.billingOrderPaid,
      handler: async (event) => {
        paidEvents.set(event.data.order_id, (paidEvents.get(event.data.order_id) ?? 0) + 1);
      },
    });
    analysisDb = openDatabase<AnalysisTables>(
      { kind: 'pg', url: system.env.DATABASE_URL!, poolSize: 1 },
      'analysis',
    );
    billingDb = openDatabase<BillingTables>(
      { kind: 'pg', url: system.env.DATABASE_URL!, poolSize: 1 },
      'billing',
    );

    account = await signedInAccount(system, smtp, 'replicas');
    key = (await createKey(system, account.session)).key;
    const me = await fetch(`${system.gatewayUrl}/v1/account`, {
      headers: { authorization: `Bearer ${account.session}` },
    });
    accountId = ((await me.json()) as { data: { account_id: string } }).data.account_id;
    const granted = await grantCredit(
      commandEnv(system),
      accountId,
      GRANT,
      'replicas e2e',
      await operatorOf(system, smtp, commandEnv(system)),
    );
    expect(granted).toMatchObject({ code: 0 });
    // A domain verified against the local DNS server.
    const added = await postJson(system, '/v1/analysis/domains', { domain: DOMAIN }, account.session);
    expect(added.status).toBe(201);
    const record = ((await added.json()) as { data: { verification: { value: string } } }).data.verification;
    dns.zone.TXT.set(`_meridian-verify.${DOMAIN}`, [record.value]);
    const verified = await fetch(`${system.gatewayUrl}/v1/analysis/verify?domain=${DOMAIN}`, {
      headers: { authorization: `Bearer ${account.session}` },
    });
    expect(((await verified.json()) as { data: { found: boolean } }).data.found).toBe(true);
    gateways = [system.gatewayUrl, await secondGateway];
  }, 180_000);

  afterAll(async () => {
    await paidConsumer?.close();
    await bus?.close();
    await analysisDb?.close();
    await billingDb?.close();
    await system?.stop();
    await smtp?.close();
    await dns?.close();
    await site?.close();
  });

  const read = (gateway: string) =>
    timed(`${gateway}/v1/data/crypto/spot/reference_price?entity=BTC-USD`, { headers: { 'x-api-key': key } });

  /**
   * Commissions one run with its own Idempotency-Key, as a client does: a 503 (retryable, with
   * Retry-After) is asked again with the same key, so a run is made at most once whatever happened.
   */
  async function commission(gateway: string, answers: Answer[]): Promise<string> {
    const idempotencyKey = randomUUID();
    for (;;) {
      const { answer, body } = await timed(`${gateway}/v1/analysis/run`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${account.session}`,
          'idempotency-key': idempotencyKey,
        },
        body: JSON.stringify({ domain: DOMAIN, tier: 'audit_base' }),
      });
      answers.push(answer);
      if (answer.status === 201 || answer.status === 200) return (body as { data: { id: string } }).data.id;
      if (answer.status !== 503) throw new Error(`POST /v1/analysis/run answered ${answer.status}`);
      await new Promise((r) => setTimeout(r, Number(answer.retryAfter ?? 1) * 1000));
    }
  }

  const runRows = () =>
    analysisDb.db.selectFrom('runs').selectAll().where('account_id', '=', accountId).execute();

  /** The replay's first load (a retryable 503 meanwhile) is done on both data replicas. */
  async function bothDataReplicasLoaded(): Promise<void> {
    for (const until = Date.now() + 60_000; ;) {
      const answers = await Promise.all([...gateways, ...gateways].map(read));
      if (answers.every((a) => a.answer.status === 200)) break;
      if (Date.now() > until) throw new Error(`reads still answer ${answers.map((a) => a.answer.status)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /**
   * Reads: answered, or a retryable 503 with Retry-After; no other 5xx, no hang. The reads counted
   * by status, before and after the kill.
   */
  function expectAnsweredOrRetryable(
    reads: { answer: Answer; afterKill: boolean }[],
    commissions: Answer[],
  ): Map<string, number> {
    const statuses = new Map<string, number>();
    for (const { answer, afterKill } of reads) {
      const label = `${afterKill ? 'after' : 'before'} ${answer.status}`;
      statuses.set(label, (statuses.get(label) ?? 0) + 1);
    }
    const bad = reads.filter(
      ({ answer }) => answer.status !== 200 && !(answer.status === 503 && answer.retryAfter),
    );
    expect(bad.map((b) => b.answer)).toEqual([]);
    expect(reads.filter((r) => r.afterKill && r.answer.status === 200).length).toBeGreaterThan(20);
    // A commission is 201, or 200 when asked again with its key after a 503 (retryable) cut it off.
    const commissioned = (a: Answer) => a.status === 201 || a.status === 200;
    expect(commissions.filter((a) => !commissioned(a) && !(a.status === 503 && a.retryAfter))).toEqual([]);
    return statuses;
  }

  /**
   * Every accepted run finishes, once: one run per idempotency key, each succeeded, charged once,
   * its billing.order.paid.v1 seen once, its trace numbered without gaps with one run:finished; the
   * run the killed worker held was taken over.
   */
  async function expectEveryRunOnce(
    runs: string[],
    victimRun: string | undefined,
    deadPid: number | undefined,
  ): Promise<void> {
    const settled = async () =>
      (await runRows()).every((r) => r.status === 'succeeded' || r.status === 'failed');
    for (const until = Date.now() + 60_000; !(await settled());) {
      if (Date.now() > until) throw new Error(`runs not settled: ${JSON.stringify(await runRows())}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const rows = await runRows();
    expect(rows.map((r) => r.id).sort()).toEqual([...runs].sort());
    expect(rows.filter((r) => r.status !== 'succeeded')).toEqual([]);
    const victim = rows.find((r) => r.id === victimRun)!;
    expect(victim.attempts).toBe(2);
    expect(victim.worker).not.toContain(`/${deadPid}/`);
    const charges = await billingDb.db
      .selectFrom('ledger_entries')
      .select(['order_id', 'delta_atomic'])
      .where('account_id', '=', accountId)
      .where('order_id', 'is not', null)
      .execute();
    expect(charges.map((c) => c.order_id).sort()).toEqual([...runs].sort());
    expect(charges.every((c) => Number(c.delta_atomic) === -RUN_PRICE)).toBe(true);
    for (const until = Date.now() + 10_000; runs.some((id) => !paidEvents.has(id)) && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 100));
    expect(runs.map((id) => paidEvents.get(id))).toEqual(runs.map(() => 1));
    for (const id of runs) {
      const { answer, body } = await timed(`${gateways[1]}/v1/analysis/report/${id}/trace`, {
        headers: { authorization: `Bearer ${account.session}` },
      });
      expect(answer.status).toBe(200);
      const trace = (body as { data: { seq: number; stage: string; status: string }[] }).data;
      expect(trace.map((e) => e.seq)).toEqual(trace.map((_, i) => i + 1));
      expect(trace.filter((e) => e.stage === 'run' && e.status === 'finished')).toHaveLength(1);
      expect(trace.filter((e) => e.stage === 'run' && e.status === 'started')).toHaveLength(
        id === victimRun ? 2 : 1,
      );
    }
  }

  /** The survivors serve everything, through both gateways, and the balance paid every run once. */
  async function expectSurvivorsServe(
    survivorsOf: ServiceProcess[],
    before: Awaited<ReturnType<typeof served>>[],
    runCount: number,
  ): Promise<void> {
    const after = await Promise.all(Array.from({ length: 40 }, (_, i) => read(gateways[i % 2]!)));
    expect(after.map((a) => a.answer.status)).toEqual(after.map(() => 200));
    const survivors = await Promise.all(survivorsOf.map((r) => served(r.url)));
    expect(survivors[0]!.dataReads).toBeGreaterThan(before[1]!.dataReads);
    expect(survivors[1]!.jobsDone).toBeGreaterThan(before[3]!.jobsDone);
    const credits = await timed(`${gateways[0]}/v1/credits`, {
      headers: { authorization: `Bearer ${account.session}` },
    });
    expect(credits.body).toMatchObject({ balance_atomic: GRANT - runCount * RUN_PRICE });
  }

  it('shares the work between the replicas, and loses no accepted request or event when one of each is killed', async () => {
    await bothDataReplicasLoaded();
    const ready = Date.now();

    // Load: readers through both gateways until told to stop.
    const reads: { answer: Answer; afterKill: boolean }[] = [];
    let killed = false;
    let stopReading = false;
    const readers = gateways.flatMap((gateway) =>
      Array.from({ length: READERS_PER_GATEWAY }, async () => {
        while (!stopReading) {
          const afterKill = killed;
          reads.push({ answer: (await read(gateway)).answer, afterKill });
        }
      }),
    );
    const commissions: Answer[] = [];
    const runs = await Promise.all(
      Array.from({ length: RUNS_BEFORE }, (_, i) => commission(gateways[i % 2]!, commissions)),
    );

    // Both replicas of each served: data reads on both; runs commissioned on both; jobs done on both.
    const [data0, data1] = system.replicas.data;
    const [analysis0, analysis1] = system.replicas.analysis;
    let before: Awaited<ReturnType<typeof served>>[];
    let victimRun: string | undefined;
    for (const until = Date.now() + 60_000; ;) {
      before = await Promise.all([data0!, data1!, analysis0!, analysis1!].map((r) => served(r.url)));
      // The analysis replica to be killed is in the middle of a run, after finishing one.
      const rows = await runRows();
      victimRun = rows.find((r) => r.status === 'running' && r.worker?.includes(`/${analysis0!.pid}/`))?.id;
      const shared = before[2]!.jobsDone > 0 && before[3]!.jobsDone > 0;
      if (shared && victimRun) break;
      if (Date.now() > until)
        throw new Error(
          `no kill point: ${JSON.stringify({ before, rows: rows.map((r) => [r.status, r.worker]) })}`,
        );
      // The workers ran out of runs before that moment came: one more.
      if (!rows.some((r) => r.status === 'queued' || r.status === 'running'))
        runs.push(await commission(gateways[runs.length % 2]!, commissions));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(before[0]!.dataReads).toBeGreaterThan(0);
    expect(before[1]!.dataReads).toBeGreaterThan(0);
    expect(before[2]!.runsCommissioned).toBeGreaterThan(0);
    expect(before[3]!.runsCommissioned).toBeGreaterThan(0);

    // One replica of each, SIGKILLed under load: a run in its worker's hands, reads and more
    // commissions in flight (a commission cut off is asked again with its key, as a client does).
    const late = Array.from({ length: RUNS_AFTER }, (_, i) => commission(gateways[i % 2]!, commissions));
    await new Promise((r) => setTimeout(r, 20));
    const killedAt = Date.now();
    killed = true;
    await Promise.all([data0!.kill(), analysis0!.kill()]);
    runs.push(...(await Promise.all(late)));
    await new Promise((r) => setTimeout(r, 3_000));
    stopReading = true;
    await Promise.all(readers);

    const statuses = expectAnsweredOrRetryable(reads, commissions);

    await expectEveryRunOnce(runs, victimRun, analysis0!.pid);

    await expectSurvivorsServe([data1!, analysis1!], before, runs.length);

    console.error(
      `replicas: ${reads.length} reads (${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')}), ` +
        `slowest ${Math.max(...reads.map((r) => r.answer.ms))} ms; ${runs.length} runs, ` +
        `commission answers ${commissions.map((a) => a.status).join(' ')}; served before the kill: ` +
        `data ${before[0]!.dataReads}/${before[1]!.dataReads} reads, analysis ${before[2]!.runsCommissioned}/` +
        `${before[3]!.runsCommissioned} runs commissioned, ${before[2]!.jobsDone}/${before[3]!.jobsDone} jobs; ` +
        `run ${victimRun} taken over; processes up ${Math.round((systemUp - startedAt) / 1000)} s, ready ${Math.round((ready - startedAt) / 1000)} s, ` +
        `kill after ${Math.round((killedAt - ready) / 1000)} s, all settled ${Math.round((Date.now() - killedAt) / 1000)} s after it`,
    );
  }, 150_000);
});
