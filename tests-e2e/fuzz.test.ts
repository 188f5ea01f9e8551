import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { SESSION_COOKIE } from '@meridian/contracts';
import { openDatabase } from '@meridian/db';
import { startDnsPeer, startSmtp } from '@meridian/test-peers';
import { createKey, commandEnv, grantCredit, operatorOf, signedInAccount } from './src/accounts.js';
import { operationsOf, requestArb, writeArb, type FuzzRequest, type Operation } from './src/fuzz-requests.js';
import { ledgerSums, type LedgerTables } from './src/ledger.js';
import { startSystem, type System } from './src/system.js';

/**
 * Every route of `/openapi.json` and the web portal's pages, driven with generated and
 * mutated requests. Properties: no 5xx (but a 503 with Retry-After where the contract names one),
 * every error a problem+json with the spec's fields, and nothing half-written in the databases.
 * FUZZ_SEED fixes the generation (printed), FUZZ_RUNS the number of requests (default 10 240),
 * FUZZ_KEEP_GOING=1 collects every violation rather than stopping at the first.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 19_2026);
const REQUESTS = Number(process.env.FUZZ_RUNS ?? 10_240);
/** Requests of one property run, sent at once: the machine's two cores stay busy. */
const BATCH = 16;
const KEEP_GOING = process.env.FUZZ_KEEP_GOING === '1';

/** The web portal's pages (the gateway's route table sends `/` and `/assets` to the portal edge). */
const PAGES: Operation[] = [
  { method: 'GET', path: '/', group: 'pages', query: [], body: {}, statuses: new Set([200]) },
  { method: 'GET', path: '/assets/{name}', group: 'pages', query: [], body: {}, statuses: new Set([200]) },
];

/** The routes that answer an HTML form of a mailed link with an HTML page. */
const FORM_PAGES = ['/auth/verify-email', '/auth/password/reset', '/auth/unlock'];

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

describe('the whole system under generated and mutated requests', () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let dns: Awaited<ReturnType<typeof startDnsPeer>>;
  let secrets: { session: string; key: string };
  let ops: Operation[];
  let byKey: Map<string, Operation>;
  const opOf = (req: FuzzRequest) => byKey.get(req.op)!;
  const violations = new Set<string>();
  const tried = new Map<string, number>();

  beforeAll(async () => {
    smtp = await startSmtp();
    // Resolvers of the analysis service on loopback: a fuzzed domain never reaches the internet.
    dns = await startDnsPeer();
    system = await startSystem('e2e_fuzz', {
      SMTP_URL: smtp.url,
      TRUST_PROXY: 'loopback',
      DNS_SERVERS: dns.address,
      SCANNER_ALLOW_LOOPBACK: 'true',
      SCANNER_TIMEOUT_MS: '500',
      CONSULTING_HOURS: 'mon-sun 00:00-24:00',
      CONSULTING_NOTICE_HOURS: '1',
    });
    const account = await signedInAccount(system, smtp, 'fuzz');
    const key = await createKey(system, account.session);
    secrets = { session: account.session, key: key.key };
    // Credit, so that the fuzzed purchases, subscriptions and bookings really spend and write.
    const whoami = await fetch(`${system.gatewayUrl}/v1/agent/whoami`, {
      headers: { authorization: `Bearer ${account.session}` },
    });
    const accountId = ((await whoami.json()) as { data: { account_id: string } }).data.account_id;
    const granted = await grantCredit(
      commandEnv(system),
      accountId,
      500_000_000,
      'fuzz credit',
      await operatorOf(system, smtp, commandEnv(system)),
    );
    if (granted.code !== 0) throw new Error('the credit grant failed');
    const openapi = await (await fetch(`${system.gatewayUrl}/openapi.json`)).json();
    ops = [...operationsOf(openapi as Parameters<typeof operationsOf>[0]), ...PAGES];
    byKey = new Map(ops.map((o) => [`${o.method} ${o.path}`, o]));
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
    await smtp?.close();
    await dns?.close();
  });

  function headersOf(req: FuzzRequest): Record<string, string> {
    const headers: Record<string, string> = { 'x-forwarded-for': req.forwardedFor };
    // Signing out would end the one session every later request uses: logout gets a forged one.
    const c =
      req.path.startsWith('/auth/logout') &&
      typeof req.credential === 'string' &&
      req.credential.startsWith('session')
        ? { forged: 'session' as const, value: 'signed-out-by-the-fuzzer' }
        : req.credential;
    if (c === 'session-bearer') headers.authorization = `Bearer ${secrets.session}`;
    else if (c === 'session-cookie') headers.cookie = `${SESSION_COOKIE}=${secrets.session}`;
    else if (c === 'key-header') headers['x-api-key'] = secrets.key;
    else if (c === 'key-bearer') headers.authorization = `Bearer ${secrets.key}`;
    else if (typeof c === 'object') {
      if (c.forged === 'key') headers['x-api-key'] = c.value;
      if (c.forged === 'session') headers.authorization = `Bearer ${c.value}`;
      if (c.forged === 'basic') headers.authorization = `Basic ${c.value}`;
      if (c.forged === 'cookie') headers.cookie = `${SESSION_COOKIE}=${c.value}`;
    }
    return headers;
  }

  async function send(req: FuzzRequest): Promise<Answer> {
    const group = opOf(req).group;
    tried.set(group, (tried.get(group) ?? 0) + 1);
    const headers = headersOf(req);
    let body: string | undefined;
    const withBody = !['GET', 'HEAD'].includes(req.method);
    if (withBody && req.body.kind !== 'none') {
      if (req.body.kind === 'json') body = JSON.stringify(req.body.value);
      else if (req.body.kind === 'raw') body = req.body.text;
      else body = JSON.stringify({ padding: 'x'.repeat(req.body.bytes) });
      const type = req.body.contentType;
      if (type) headers['content-type'] = type;
    }
    const query = req.query.map(([n, v]) => `${n}=${v}`).join('&');
    const url = `${system.gatewayUrl}${req.path}${query ? `?${query}` : ''}`;
    // Every answer is read whole, large uploads too: a refusal that leaves a body within the
    // limit unread keeps the connection (gateway/src/edge/bodies.ts, closesUnread), so no
    // upload is cut by a reset before its answer.
    return answerOf(req, url, headers, body);
  }

  async function answerOf(
    req: FuzzRequest,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Answer> {
    const res = await fetch(url, {
      method: req.method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, headers: res.headers, text: req.method === 'HEAD' ? '' : await res.text() };
  }

  /**
   * A form post to one of the three mailed-link routes: a browser is on the other end, so its
   * refusal is a small HTML page by design (services/identity/README.md), not a problem.
   */
  const formPage = (req: FuzzRequest) =>
    FORM_PAGES.includes(req.path.replace(/\/$/, '')) &&
    req.body.kind !== 'none' &&
    req.body.contentType?.startsWith('application/x-www-form-urlencoded') === true;

  /** What is wrong with an answer, or null. */
  function violation(req: FuzzRequest, answer: Answer): string | null {
    const { status, headers } = answer;
    if (status < 400) return null;
    const type = headers.get('content-type') ?? '';
    // The x402 challenge (data-api 5) is the one error answered as plain JSON.
    if (status === 402 && opOf(req).group === 'data' && headers.get('payment-required')) return null;
    if (formPage(req) && type.startsWith('text/html')) return null;
    if (!type.startsWith('application/problem+json')) return `${status} answered as "${type}"`;
    if (req.method === 'HEAD') return null;
    let problem: Record<string, unknown>;
    try {
      problem = JSON.parse(answer.text) as Record<string, unknown>;
    } catch {
      return `${status} problem is not JSON`;
    }
    for (const field of ['type', 'title', 'detail', 'error_category'])
      if (typeof problem[field] !== 'string') return `${status} problem without a string ${field}`;
    if (problem.status !== status) return `${status} problem says status ${String(problem.status)}`;
    if (typeof problem.retryable !== 'boolean') return `${status} problem without retryable`;
    if (problem.retry_after !== undefined && !Number.isInteger(problem.retry_after))
      return `${status} problem with a retry_after that is not an integer`;
    if (status === 429 && !(Number.isInteger(problem.retry_after) && headers.get('retry-after')))
      return '429 without retry_after and Retry-After';
    if (status >= 500) {
      // Allowed: a retryable 503 with Retry-After where the contract names one (the data
      // service's first load, the DNS resolvers of analysis, the gateway's identity lookups).
      const declared = opOf(req).group === 'data' || opOf(req).statuses.has(503);
      if (!(status === 503 && problem.retryable === true && headers.get('retry-after') && declared))
        return `${status} ${String(problem.error_category)}: ${String(problem.detail)}`;
    }
    return null;
  }

  const describeRequest = (req: FuzzRequest) =>
    JSON.stringify({
      method: req.method,
      path: req.path,
      query: req.query.map(([n, v]) => [n.slice(0, 40), v.slice(0, 80)]),
      credential: req.credential,
      body: req.body.kind === 'big' ? req.body : { ...req.body, value: undefined, text: undefined },
      bodyText:
        req.body.kind === 'json'
          ? JSON.stringify(req.body.value).slice(0, 300)
          : req.body.kind === 'raw'
            ? req.body.text.slice(0, 300)
            : undefined,
    });

  it(`answers ${REQUESTS} fuzzed requests without a 5xx, each error a problem+json`, async () => {
    console.error(
      `fuzz: seed ${SEED} (FUZZ_SEED), ${REQUESTS} requests (FUZZ_RUNS), ${ops.length} operations`,
    );
    const groups = [...new Set(ops.map((o) => o.group))];
    // Each group weighs the same, whatever its number of operations (data has one per metric).
    const generated = fc
      .constantFrom(...groups)
      .chain((g) => fc.constantFrom(...ops.filter((o) => o.group === g)))
      .chain(requestArb);
    const writes = ops.filter((o) => o.method !== 'GET' && Object.keys(o.body).length > 0);
    // One request in five is a well-formed write of the signed-in account.
    const anyRequest = fc.oneof(
      { weight: 4, arbitrary: generated },
      { weight: 1, arbitrary: fc.constantFrom(...writes).chain(writeArb) },
    );
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.array(anyRequest, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const answers = await Promise.all(batch.map(send));
        batch.forEach((req, i) => {
          const wrong = violation(req, answers[i]!);
          if (!wrong) return;
          const report = `${wrong} | ${req.method} ${req.op}\n  request ${describeRequest(req)}\n  answer ${answers[i]!.text.slice(0, 300)}`;
          // FUZZ_KEEP_GOING lists every distinct violation of the run instead of stopping at the first.
          if (KEEP_GOING) violations.add(report);
          else throw new Error(report);
        });
      }),
      { seed: SEED, numRuns: Math.ceil(REQUESTS / BATCH), endOnFailure: true },
    );
    const total = [...tried.values()].reduce((a, b) => a + b, 0);
    const perGroup = [...tried.entries()]
      .sort()
      .map(([g, n]) => `${g} ${n}`)
      .join(', ');
    console.error(
      `fuzz: ${total} requests tried in ${((Date.now() - started) / 1000).toFixed(1)} s: ${perGroup}`,
    );
    expect(total).toBeGreaterThanOrEqual(REQUESTS);
    expect([...violations]).toEqual([]);
    // The session lasted the whole run, so the signed-in routes were reached to the end.
    const me = await fetch(`${system.gatewayUrl}/v1/account`, {
      headers: { authorization: `Bearer ${secrets.session}` },
    });
    expect(me.status).toBe(200);
  }, 600_000);

  it('leaves nothing half-written: balances, ledgers, keys, requests agree in the databases', async () => {
    const url = system.env.DATABASE_URL!;
    const billing = openDatabase<LedgerTables>({ kind: 'pg', url, poolSize: 1 }, 'billing');
    const identity = openDatabase<IdentityTables>({ kind: 'pg', url, poolSize: 1 }, 'identity');
    const requests = openDatabase<RequestsTables>({ kind: 'pg', url, poolSize: 1 }, 'requests');
    const analysis = openDatabase<AnalysisTables>({ kind: 'pg', url, poolSize: 1 }, 'analysis');
    try {
      const ledger = await ledgerSums(billing.db);
      expect(ledger.balances).toEqual(ledger.sums);
      expect(ledger.negative).toEqual([]);

      const accounts = new Set(
        (await identity.db.selectFrom('accounts').select('id').execute()).map((a) => a.id),
      );
      const keys = await identity.db.selectFrom('api_keys').select(['id', 'account_id']).execute();
      expect(keys.filter((k) => !accounts.has(k.account_id))).toEqual([]);
      const sessions = await identity.db.selectFrom('sessions').select(['id', 'account_id']).execute();
      expect(sessions.filter((s) => !accounts.has(s.account_id))).toEqual([]);
      // Credit is only ever posted to an account identity knows.
      expect(ledger.sums.map(([a]) => a).filter((a) => !accounts.has(a))).toEqual([]);

      const asked = await requests.db
        .selectFrom('service_requests')
        .select(['id', 'account_id', 'count', 'first_at', 'last_at'])
        .execute();
      expect(
        asked.filter((r) => r.count < 1 || r.first_at > r.last_at || !accounts.has(r.account_id)),
      ).toEqual([]);
      const bookings = await requests.db
        .selectFrom('bookings')
        .select(['id', 'account_id', 'starts_at', 'ends_at'])
        .execute();
      expect(bookings.filter((b) => b.starts_at >= b.ends_at || !accounts.has(b.account_id))).toEqual([]);

      const domains = await analysis.db.selectFrom('domains').select(['id', 'account_id']).execute();
      const domainOwner = new Map(domains.map((d) => [d.id, d.account_id]));
      const credentials = await analysis.db
        .selectFrom('credentials')
        .select(['id', 'account_id', 'domain_id'])
        .execute();
      expect(credentials.filter((c) => domainOwner.get(c.domain_id) !== c.account_id)).toEqual([]);
      console.error(
        `fuzz: invariants over ${ledger.balances.length} balances, ${ledger.entries} ledger entries, ${keys.length} keys, ${asked.length} service requests, ${bookings.length} bookings, ${domains.length} domains`,
      );
    } finally {
      await Promise.all([billing.close(), identity.close(), requests.close(), analysis.close()]);
    }
  }, 60_000);
});

/** The columns the invariants read, of each service's own schema. */
interface IdentityTables {
  accounts: { id: string };
  api_keys: { id: string; account_id: string };
  sessions: { id: string; account_id: string };
}
interface RequestsTables {
  service_requests: { id: number; account_id: string; count: number; first_at: Date; last_at: Date };
  bookings: { id: string; account_id: string; starts_at: Date; ends_at: Date };
}
interface AnalysisTables {
  domains: { id: string; account_id: string };
  credentials: { id: string; account_id: string; domain_id: string };
}
