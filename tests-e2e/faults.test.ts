import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '@meridian/db';
import {
  startNatsServer,
  startPostgresServer,
  startSmtp,
  type NatsServer,
  type PostgresServer,
} from '@meridian/test-peers';
import {
  commandEnv,
  grantCredit,
  operatorOf,
  postJson,
  type SignedIn,
  signedInAccount,
} from './src/accounts.js';
import {
  STREAMS,
  expectAppliedOnce,
  expectBookingsPaidOnce,
  expectEachEventOnce,
  openSchemas,
  waitUntilQuiet,
  type BillingTables,
} from './src/after-recovery.js';
import { eventually } from './src/eventually.js';
import { streamReader } from './src/streams.js';
import { ledgerSums } from './src/ledger.js';
import { SERVICE_NAMES, startSystem, type System } from './src/system.js';

/**
 * Faults: NATS restarted mid-run, Postgres restarted, billing killed (SIGKILL) between
 * writing an event and publishing it, and again between publishing it and marking it sent. The
 * system runs on a private nats-server and a private PostgreSQL cluster (the machine's servers are
 * shared by the tests running beside this one and are never restarted). Afterwards every event of
 * every outbox is in its stream once, every durable consumer applied each event of its filter once,
 * and every ledger balance equals the sum of its entries (those checks: src/after-recovery.ts).
 */
describe('faults: NATS and Postgres restarts, a service killed between write and publish', () => {
  let nats: NatsServer;
  let postgres: PostgresServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let system: System;
  const accounts: Array<SignedIn & { id: string }> = [];
  /** Every answer given while a server was down: none may be a 500 or anything but a retryable 503. */
  const duringOutages: Array<{ what: string; status: number; retryable: unknown }> = [];
  /** Bookings answered 201 (each needs exactly one debit and one confirmation mail). */
  const booked: string[] = [];
  let nextSlot = 0;

  beforeAll(async () => {
    [nats, postgres, smtp] = await Promise.all([startNatsServer(), startPostgresServer(), startSmtp()]);
    system = await startSystem(
      'e2e_faults',
      {
        NATS_URL: nats.url,
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: 'http://localhost:8080',
        TRUST_PROXY: 'loopback',
        CONSULTING_HOURS: 'mon-sun 00:00-24:00',
        CONSULTING_NOTICE_HOURS: '1',
      },
      { postgresUrl: postgres.url },
    );
    for (const label of ['alpha', 'bravo', 'charlie']) {
      const signed = await signedInAccount(system, smtp, `faults-${label}`);
      const id = await accountIdOf(signed.session);
      expect(await grant(id, 3_000_000_000)).toMatchObject({ code: 0 });
      accounts.push({ ...signed, id });
    }
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
    await Promise.all([nats?.close(), postgres?.close(), smtp?.close()]);
  });

  const account = (i: number): SignedIn => accounts[i]!;
  const get = (path: string, session: string) =>
    fetch(`${system.gatewayUrl}${path}`, { headers: { authorization: `Bearer ${session}` } });
  const accountIdOf = async (session: string) =>
    ((await (await get('/v1/agent/whoami', session)).json()) as { data: { account_id: string } }).data
      .account_id;
  const grant = async (accountId: string, amount: number) =>
    grantCredit(
      commandEnv(system),
      accountId,
      amount,
      'faults',
      await operatorOf(system, smtp, commandEnv(system)),
    );
  const buyPlan = (session: string, plan: string) => postJson(system, '/v1/billing/plan', { plan }, session);
  /** A consulting booking paid from credit, each in an hour of its own. */
  const book = async (session: string) => {
    const start = new Date(Date.now() + (3 + nextSlot++) * 3_600_000);
    start.setUTCMinutes(0, 0, 0);
    const res = await postJson(
      system,
      '/v1/consulting/bookings',
      { starts_at: start.toISOString(), topic: 'faults' },
      session,
    );
    if (res.status === 201) booked.push(((await res.clone().json()) as { data: { id: string } }).data.id);
    return res;
  };
  const planOf = async (session: string) =>
    ((await (await get('/v1/account', session)).json()) as { data: { plan: string } }).data.plan;
  /** Records an answer given during an outage. */
  const during = async (what: string, answer: Promise<Response>) => {
    const res = await answer;
    const body = (await res.json().catch(() => ({}))) as { retryable?: unknown };
    duringOutages.push({ what, status: res.status, retryable: body.retryable });
  };
  /** Every service answers /ready again (its database and bus reachable). */
  const allReady = async () => {
    const notReady = async () =>
      (
        await Promise.all(
          SERVICE_NAMES.map(async (n) => {
            const answer = await fetch(`${system.serviceUrls[n]}/ready`).then(
              async (r) => (r.ok ? undefined : `${r.status} ${await r.text()}`),
              (err: unknown) => String(err),
            );
            return answer && `${n}: ${answer}`;
          }),
        )
      ).filter(Boolean);
    try {
      await eventually(async () => (await notReady()).length === 0, 60_000);
    } catch {
      throw new Error(`not ready within 60 s: ${(await notReady()).join('; ')}`);
    }
  };

  it('keeps its state through a NATS restart: what billing wrote meanwhile reaches identity after it', async () => {
    const [alpha, bravo, charlie] = [account(0), account(1), account(2)];
    expect((await buyPlan(alpha.session, 'pro')).status).toBe(200);
    expect((await book(alpha.session)).status).toBe(201);
    expect((await buyPlan(bravo.session, 'basic')).status).toBe(200);
    expect(
      (await postJson(system, '/v1/audit/subscribe', { tier: 'audit_base' }, charlie.session)).status,
    ).toBe(200);
    await eventually(async () => (await planOf(bravo.session)) === 'basic');

    const t0 = Date.now();
    await nats.stop('SIGKILL');
    const boughtDuring = await buyPlan(bravo.session, 'pro');
    await during('nats down: buy a plan', Promise.resolve(boughtDuring));
    await during('nats down: book', book(alpha.session));
    await during('nats down: credits', get('/v1/credits', charlie.session));
    await new Promise((r) => setTimeout(r, 2_000));
    await nats.start();
    await allReady();
    console.error(`faults: NATS down and back, services ready again, in ${Date.now() - t0} ms`);
    if (boughtDuring.status === 200) await eventually(async () => (await planOf(bravo.session)) === 'pro');
    // Work goes on as before.
    expect((await book(bravo.session)).status).toBe(201);
  }, 120_000);

  it('answers 503 while Postgres is down and works again once it is back', async () => {
    const [alpha, charlie] = [account(0), account(2)];
    const t0 = Date.now();
    await postgres.stop('immediate');
    await during('postgres down: credits', get('/v1/credits', alpha.session));
    await during('postgres down: buy a plan', buyPlan(charlie.session, 'basic'));
    await during('postgres down: book', book(alpha.session));
    await during('postgres down: account', get('/v1/account', alpha.session));
    await postgres.start();
    await allReady();
    console.error(`faults: Postgres down and back, services ready again, in ${Date.now() - t0} ms`);
    expect((await buyPlan(alpha.session, 'ultra')).status).toBe(200);
    expect((await book(charlie.session)).status).toBe(201);
    await eventually(async () => (await planOf(alpha.session)) === 'ultra');
  }, 120_000);

  it('publishes once what billing wrote before a SIGKILL, and once what it published but had not marked; a killed consumer catches up', async () => {
    const [alpha, bravo] = [account(0), account(1)];
    const billing = openDatabase<BillingTables>(
      { kind: 'pg', url: system.env.DATABASE_URL!, poolSize: 1 },
      'billing',
    );
    const unsent = async () =>
      await billing.db
        .selectFrom('outbox')
        .select(['id', 'subject'])
        .where('sent_at', 'is', null)
        .orderBy('seq')
        .execute();
    try {
      // What billing wrote before is relayed; then its relay holds every row before publishing it.
      await eventually(async () => (await unsent()).length === 0);
      await system.restart('billing', { OUTBOX_TEST_RELAY_DELAY_MS: '600000' });
      expect((await buyPlan(bravo.session, 'ultra')).status).toBe(200);
      expect((await book(alpha.session)).status).toBe(201);
      const held = await unsent();
      expect(held.map((r) => r.subject)).toEqual(['billing.plan.changed.v1', 'billing.order.paid.v1']);
      await new Promise((r) => setTimeout(r, 500));
      expect(await planOf(bravo.session)).toBe('pro');

      // Killed with both written and neither published; restarted with the relay holding each row
      // after publishing it, before marking it sent. Identity, the plan's consumer, is killed too
      // and comes back only once the event waits in the stream: its durable consumer catches up.
      await system.kill('billing');
      await system.kill('identity');
      await system.restart('billing', { OUTBOX_TEST_MARK_DELAY_MS: '600000' });
      const reader = await streamReader(nats.url, system.env.BUS_NAMESPACE!);
      try {
        await eventually(async () => (await reader.contents('BILLING')).ids.includes(held[0]!.id));
      } finally {
        await reader.close();
      }
      await system.restart('identity');
      await eventually(async () => (await planOf(bravo.session)) === 'ultra');
      expect((await unsent()).map((r) => r.id)).toEqual(held.map((r) => r.id));

      // Killed again with the first published and not marked: the next relay publishes it again
      // (JetStream drops the copy by its id) and the second for the first time.
      await system.kill('billing');
      await system.restart('billing');
      await eventually(async () => (await unsent()).length === 0);
    } finally {
      await billing.close();
    }
  }, 120_000);

  it('after recovery: every event in its stream once, applied once by each consumer; every balance the sum of its entries', async () => {
    expect(
      duringOutages.filter((a) => a.status >= 500 && (a.status !== 503 || a.retryable !== true)),
    ).toEqual([]);
    console.error(`faults: answers during outages: ${JSON.stringify(duringOutages)}`);

    const dbs = openSchemas(system.env.DATABASE_URL!);
    const reader = await streamReader(nats.url, system.env.BUS_NAMESPACE!);
    try {
      await waitUntilQuiet(dbs, reader);
      const { outboxes, events } = await expectEachEventOnce(dbs, reader);
      await expectAppliedOnce(dbs, outboxes);
      const bookings = await expectBookingsPaidOnce(dbs, smtp.mails, booked);

      // The ledger: every balance equals the sum of its entries, none negative.
      const ledger = await ledgerSums(dbs.billing.db);
      expect(ledger.balances).toEqual(ledger.sums);
      expect(ledger.negative).toEqual([]);

      // Identity's plan of each account is billing's.
      for (const a of accounts) {
        const billed = (
          (await (await get('/v1/billing/plan', a.session)).json()) as { data: { plan: string | null } }
        ).data.plan;
        expect({ account: a.id, plan: await planOf(a.session) }).toEqual({
          account: a.id,
          plan: billed ?? 'free',
        });
      }
      console.error(
        `faults: ${events} events checked in ${Object.keys(STREAMS).length} streams, ${bookings} bookings, ${ledger.entries} ledger entries over ${ledger.balances.length} balances`,
      );
    } finally {
      await reader.close();
      await Promise.all(Object.values(dbs).map((d) => d.close()));
    }
  }, 120_000);
});
