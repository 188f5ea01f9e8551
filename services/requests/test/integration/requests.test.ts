// Service requests as an account makes them (recorded, counted, normalised, refused) and as an
// operator lists and marks them with requests:admin.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { waitFor } from '@meridian/bus/testing';
import { EVENTS, type CloudEvent } from '@meridian/contracts';
import { main } from '../../scripts/admin.js';
import { TEST_NATS_URL } from '@meridian/runtime/testing';
import { startRequests, type Requests } from './harness.js';
import { recordEvents, requestCalls } from './support/calls.js';

describe('service requests', () => {
  let h: Requests;
  let events: CloudEvent[];
  let stopConsumer: () => Promise<void>;
  const { ask } = requestCalls(() => h);

  beforeAll(async () => {
    h = await startRequests('requests');
    const recorded = await recordEvents(h);
    events = recorded.events;
    stopConsumer = recorded.close;
  }, 90_000);
  afterAll(async () => {
    await stopConsumer?.();
    await h?.close();
  });

  describe('POST /v1/requests', () => {
    it('records a request and counts identical ones, also when they arrive at once', async () => {
      const account = randomUUID();
      const first = await ask(account, {
        kind: 'pentest',
        domain: 'shop.example.com',
        detail: 'before launch',
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ ok: true, count: 1 });
      const burst = await Promise.all(
        Array.from({ length: 20 }, () => ask(account, { kind: 'pentest', domain: 'SHOP.example.com' })),
      );
      expect(burst.map((r) => r.body.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 2),
      );
      expect(
        (await ask(account, { kind: 'pentest_discussion', domain: 'shop.example.com' })).body.count,
      ).toBe(1);
      expect((await ask(randomUUID(), { kind: 'pentest', domain: 'shop.example.com' })).body.count).toBe(1);
      await waitFor(
        () =>
          events.filter(
            (e) =>
              e.type === EVENTS.requestsRequestRecorded &&
              (e.data as { account_id: string }).account_id === account,
          ).length === 22,
        { what: 'recorded events' },
      );
    });

    it('normalises the domain as the domains route does, so spellings of one host count together', async () => {
      const account = randomUUID();
      expect((await ask(account, { kind: 'pentest', domain: 'ACME-shop.test.' })).body).toEqual({
        ok: true,
        count: 1,
      });
      expect((await ask(account, { kind: 'pentest', domain: ' acme-shop.test ' })).body.count).toBe(2);
      expect((await ask(account, { kind: 'pentest', domain: 'Bücher.example' })).body.count).toBe(1);
      expect((await ask(account, { kind: 'pentest', domain: 'xn--bcher-kva.example' })).body.count).toBe(2);
      await waitFor(
        () =>
          events.filter(
            (e) =>
              e.type === EVENTS.requestsRequestRecorded &&
              (e.data as { account_id: string }).account_id === account,
          ).length === 4,
        { what: 'recorded events' },
      );
      const domains = events
        .filter((e) => (e.data as { account_id: string }).account_id === account)
        .map((e) => (e.data as { domain: string }).domain);
      expect(new Set(domains)).toEqual(new Set(['acme-shop.test', 'xn--bcher-kva.example']));
      for (const bad of [
        'acme..test',
        'localhost',
        '10.0.0.1',
        '*.acme.test',
        'acme.test:443',
        'https://shop.example.com',
        'shop.example.com/path',
        '-bad.example',
      ]) {
        const res = await ask(account, { kind: 'pentest', domain: bad });
        expect(res.status).toBe(400);
        expect(res.body.detail).toMatch(/^domain: /);
      }
    });

    it('takes a consultancy without a domain, and refuses unknown kinds, malformed bodies and a missing session', async () => {
      const account = randomUUID();
      expect((await ask(account, { kind: 'consultancy' })).body).toEqual({ ok: true, count: 1 });
      expect((await ask(account, { kind: 'consultancy', domain: '', detail: 'CSP' })).body).toEqual({
        ok: true,
        count: 2,
      });
      for (const bad of [
        { kind: 'audit' },
        { kind: 'pentest', domain: 'http://x.com/' },
        { kind: 'pentest' },
        { kind: 'consultancy', domain: 'a.com' },
        { kind: 'pentest', domain: 'a.com', detail: 'x'.repeat(4001) },
        { kind: 'pentest', domain: 'a.com', extra: 1 },
        [],
      ]) {
        const res = await ask(account, bad);
        expect(res.status).toBe(400);
        expect(res.type).toBe('application/problem+json');
      }
      expect(
        (
          await request(h.app)
            .post('/v1/requests')
            .set(await h.as(account).then(() => ({})))
            .send({ kind: 'consultancy' })
        ).status,
      ).toBe(401);
    });
  });

  describe('the cap on open requests naming a domain', () => {
    const domains = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}-${i}.example`);

    it('lets exactly ten of twelve new requests asked at once through; asking again, consultancy and closed ones are not capped', async () => {
      const account = randomUUID();
      const answers = await Promise.all(
        domains(12, 'burst').map((domain) => ask(account, { kind: 'pentest', domain })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([...Array(10).fill(200), 409, 409]);
      const refused = answers.find((a) => a.status === 409)!;
      expect(refused.body).toMatchObject({ error_category: 'request_limit' });
      const rows = await h.deps.db
        .selectFrom('service_requests')
        .select(['id', 'domain'])
        .where('account_id', '=', account)
        .execute();
      expect(rows).toHaveLength(10);
      expect((await ask(account, { kind: 'pentest', domain: rows[0]!.domain })).body.count).toBe(2);
      expect((await ask(account, { kind: 'consultancy' })).status).toBe(200);
      expect((await ask(account, { kind: 'pentest_discussion', domain: 'one-more.example' })).status).toBe(
        409,
      );

      await h.deps.db
        .updateTable('service_requests')
        .set({ status: 'closed' })
        .where('id', '=', rows[0]!.id)
        .execute();
      expect((await ask(account, { kind: 'pentest_discussion', domain: 'one-more.example' })).status).toBe(
        200,
      );
      await h.deps.db
        .updateTable('service_requests')
        .set({ last_at: new Date(Date.now() - 31 * 86_400_000) })
        .where('id', '=', rows[1]!.id)
        .execute();
      expect((await ask(account, { kind: 'pentest', domain: 'after-lapse.example' })).status).toBe(200);
      expect((await ask(account, { kind: 'pentest', domain: 'past-cap.example' })).status).toBe(409);
      // Reopening a closed one is a new open request: within the cap only.
      expect((await ask(account, { kind: 'pentest', domain: rows[0]!.domain })).status).toBe(409);
    });
  });

  describe('requests:admin', () => {
    const operatorEmail = 'ana.desk@example.com';
    const operatorId = randomUUID();
    beforeAll(() => {
      // Identity's answers to rpc.identity.operator.resolve.v1, as its contract gives them.
      h.identity.operators.set(operatorEmail, operatorId);
      h.identity.members.add('member@example.com');
    });

    const admin = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(argv, {
        env: { DATABASE_URL: h.databaseUrl, NATS_URL: TEST_NATS_URL, BUS_NAMESPACE: h.busNamespace },
        stdout: (s) => out.push(s),
        stderr: (s) => err.push(s),
      });
      return { code, out: out.join(''), err: err.join('') };
    };
    const logOf = (id: string) =>
      h.deps.db
        .selectFrom('operator_actions')
        .select(['actor', 'action', 'target', 'reason'])
        .where('target', '=', `request:${id}`)
        .execute();

    it('lists open requests for an operator and marks them reviewed, logging the checked operator in the same transaction', async () => {
      const account = randomUUID();
      await ask(account, { kind: 'pentest', domain: 'admin-case.example.com', detail: 'call me' });
      const listed = await admin('list', '--status', 'open', '--limit', '500');
      expect(listed.code).toBe(0);
      const line = listed.out.split('\n').find((l) => l.includes('admin-case.example.com'))!;
      expect(line).toContain(`account ${account}`);
      const id = line.slice(1, line.indexOf(' '));
      expect(
        await admin(
          'mark',
          '--id',
          id,
          '--status',
          'reviewed',
          '--operator',
          operatorEmail,
          '--note',
          'called back',
        ),
      ).toMatchObject({ code: 0, out: `#${id} marked reviewed by ${operatorEmail}\n` });
      expect(await logOf(id)).toEqual([
        {
          actor: `operator:${operatorId}`,
          action: 'request.mark.reviewed',
          target: `request:${id}`,
          reason: 'called back',
        },
      ]);
      const row = await h.deps.db
        .selectFrom('service_requests')
        .select('reviewed_by')
        .where('id', '=', Number(id))
        .executeTakeFirstOrThrow();
      expect(row.reviewed_by).toBe(`operator:${operatorId}`);
      expect((await admin('list', '--status', 'open', '--limit', '500')).out).not.toContain(
        'admin-case.example.com',
      );
      expect(
        (await admin('mark', '--id', '999999', '--status', 'closed', '--operator', operatorEmail)).code,
      ).toBe(2);
      expect((await admin('mark', '--id', id, '--status', 'done', '--operator', operatorEmail)).code).toBe(2);
      expect((await admin('shred')).code).toBe(2);
      // Asked again, it is open again for the operators.
      await ask(account, { kind: 'pentest', domain: 'admin-case.example.com' });
      expect((await admin('list', '--status', 'open', '--limit', '500')).out).toContain(
        'admin-case.example.com',
      );
    });

    it('refuses a mark naming someone who is not an operator, or by free text, in one line with exit 2, changing and logging nothing', async () => {
      const account = randomUUID();
      await ask(account, { kind: 'pentest', domain: 'not-an-operator.example.com' });
      const line = (await admin('list', '--status', 'open', '--limit', '500')).out
        .split('\n')
        .find((l) => l.includes('not-an-operator.example.com'))!;
      const id = line.slice(1, line.indexOf(' '));
      for (const [operator, said] of [
        ['member@example.com', 'requests:admin: member@example.com is not an operator\n'],
        ['nobody@example.com', 'requests:admin: no account has the email nobody@example.com\n'],
        ['ana', expect.stringMatching(/^requests:admin: --operator: /)],
      ] as const) {
        const refused = await admin('mark', '--id', id, '--status', 'closed', '--operator', operator);
        expect(refused).toMatchObject({ code: 2, out: '', err: said });
        expect(refused.err.trim().split('\n')).toHaveLength(1);
      }
      expect(await logOf(id)).toEqual([]);
      expect((await admin('list', '--status', 'open', '--limit', '500')).out).toContain(
        'not-an-operator.example.com',
      );
    });
  });
});
