import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { z } from 'zod';
import {
  bookingSchema,
  billingHistoryRowSchema,
  creditsAnswerSchema,
  paymentRequiredSchema,
  planSubscriptionSchema,
  pricesSchema,
  problemSchema,
  reportSchema,
  serviceRequestAnswerSchema,
  settleReceiptSchema,
  shareLinkSchema,
  slotSchema,
  subscriptionSchema,
  traceEventSchema,
  type TraceEvent,
} from '@meridian/contracts';
import { rememberSecret } from '@meridian/observability/testing';
import {
  linkIn,
  startDnsPeer,
  startSmtp,
  startX402Facilitator,
  type DnsPeer,
  type LocalWallet,
  type X402Facilitator,
} from '@meridian/test-peers';
import { mailTo, pressConfirmButton } from './src/accounts.js';
import { startSite, type Site } from './src/site.js';
import { replayLoaded, startSystem, type System } from './src/system.js';
import { totpCode } from './src/totp.js';
import { payingFetch } from './src/x402.js';

const PASSWORD = rememberSecret('quartz-meadow-lantern-93');
const DOMAIN = 'shop.journey-e2e.example';
const FREE_METRIC = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
/** A pro metric: refused to a free key, served once the account bought the pro plan. */
const PRO_METRIC = '/v1/data/crypto/options/chain?entity=BTC';
/** What the user's wallet deposits as a top-up: 300 USDC. */
const TOP_UP = 300_000_000;

/** `{data}` of an answer in the envelope, read with `schema`. */
const enveloped = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

/**
 * End to end: one person's journey through the public HTTP interface only (the
 * gateway's URL), every service and the gateway their own processes on the machine's Postgres and
 * NATS, the outside world played by peers on loopback: a real SMTP server catching the mail, a DNS
 * server holding the domain's records, a small site to audit, and one LiteSVM chain carrying both
 * the x402 payment (through the local facilitator) and the deposit that tops the credit up. The
 * steps run in order and each builds on the ones before it.
 */
/** A trace's server-sent events, until its `end` event (or a minute), and that end. */
async function readTrace(
  stream: Response,
): Promise<{ events: TraceEvent[]; end?: { run_id: string; status: string } }> {
  const events: TraceEvent[] = [];
  let end: { run_id: string; status: string } | undefined;
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const deadline = Date.now() + 60_000;
  while (!end && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (event === 'trace') events.push(traceEventSchema.parse(JSON.parse(data!)));
      if (event === 'end') end = JSON.parse(data!) as typeof end;
    }
  }
  await reader.cancel();
  return { events, end };
}

describe("one person's journey through the gateway", () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let dns: DnsPeer;
  let site: Site;
  let facilitator: X402Facilitator;
  /** The wallet billing watches for top-ups. */
  let depositAddress: string;
  /** The person's own wallet on the chain: 1000 USDC, and 1 SOL for the fee of the deposit it sends. */
  let wallet: LocalWallet;

  const email = `journey.${Date.now()}@example.com`;
  /** The session of the moment, and what the steps learn for the ones after them. */
  let session = '';
  let accountId = '';
  let totpSecret = '';
  let key = '';
  let runId = '';
  let depositSignature = '';
  let bookingId = '';
  const timings: Record<string, number> = {};
  /** The last step that passed: a step after a failed one fails at once, naming it. */
  let passed = 0;
  const started = Date.now();

  beforeAll(async () => {
    [smtp, dns, site, facilitator] = await Promise.all([
      startSmtp(),
      startDnsPeer(),
      startSite(),
      startX402Facilitator(),
    ]);
    timings.peers = Date.now() - started;
    dns.zone.A.set(DOMAIN, ['127.0.0.1']);
    const depositWallet = await facilitator.wallet();
    await facilitator.openTokenAccount(depositWallet.address);
    depositAddress = depositWallet.address;
    wallet = await facilitator.wallet({ usdc: 1_000_000_000, sol: 1 });
    system = await startSystem('e2e_journey', {
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      // Pay per call: the local facilitator, its chain and its seller.
      FACILITATOR_URL: facilitator.url,
      X402_NETWORK: facilitator.network,
      X402_PAY_TO: facilitator.payTo,
      // Top-ups: billing's deposit watcher on the same chain.
      SOLANA_RPC_URL: facilitator.rpcUrl,
      SOLANA_NETWORK: facilitator.network,
      DEPOSIT_ADDRESS: depositAddress,
      DEPOSIT_POLL_MS: '300',
      // Analysis: the DNS server on loopback, and the local site as the audited domain's web server.
      DNS_SERVERS: dns.address,
      SCANNER_ALLOW_LOOPBACK: 'true',
      SCANNER_HTTP_PORT: String(site.port),
      SCANNER_HTTPS_PORT: '9',
      SCANNER_TIMEOUT_MS: '2000',
      // Every hour bookable from an hour ahead, whatever the weekday.
      CONSULTING_HOURS: 'mon-sun 00:00-24:00',
      CONSULTING_NOTICE_HOURS: '1',
    });
    timings.system = Date.now() - started;
    await replayLoaded(system, FREE_METRIC);
    timings.start = Date.now() - started;
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
    await Promise.all([smtp?.close(), dns?.close(), site?.close(), facilitator?.close()]);
    timings.total = Date.now() - started;
    console.error(`journey timings (ms): ${JSON.stringify(timings)}`);
  });

  /** Step `n` of the journey: it runs only after step n-1 passed, and its time is recorded. */
  const step = (n: number, name: string, body: () => Promise<void>, timeout?: number) =>
    it(
      `${n} ${name}`,
      async () => {
        if (passed !== n - 1) throw new Error(`step ${passed + 1} did not pass; the journey stops there`);
        const stepStarted = Date.now();
        await body();
        timings[`step${n}`] = Date.now() - stepStarted;
        passed = n;
      },
      timeout,
    );

  const url = (path: string) => `${system.gatewayUrl}${path}`;
  const bearer = () => ({ authorization: `Bearer ${session}` });
  const get = (path: string, headers: Record<string, string> = bearer()) => fetch(url(path), { headers });
  const post = (path: string, body: unknown, headers: Record<string, string> = bearer()) =>
    fetch(url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const withKey = (path: string) => get(path, { 'x-api-key': key });

  /** The answer's JSON read with `schema` (a failed parse names the field). */
  async function read<T extends z.ZodType>(res: Response, schema: T): Promise<z.output<T>> {
    return schema.parse(await res.json());
  }

  /** A problem+json of `status` and `category`, every field of the spec's problem present. */
  async function problemOf(res: Response, status: number, category: string) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await read(res, problemSchema);
    expect(problem).toMatchObject({ status, error_category: category });
    return problem;
  }

  /** Calls `call` until `done` holds of its answer (events and the watcher take a moment), 20 s at most. */
  async function until(call: () => Promise<Response>, done: (res: Response) => boolean): Promise<Response> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await call();
      if (done(res) || Date.now() > deadline) return res;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  step(1, 'signs up', async () => {
    const signup = await post('/auth/signup', { email, password: PASSWORD }, {});
    expect(signup.status).toBe(202);
    expect(await signup.json()).toMatchObject({ data: { status: 'accepted' } });
    // Not yet confirmed: no sign-in.
    await problemOf(await post('/auth/login', { email, password: PASSWORD }, {}), 403, 'email_unconfirmed');
  });

  step(2, 'confirms by the mailed link', async () => {
    const link = linkIn(await mailTo(smtp, email));
    expect(link.pathname).toBe('/auth/verify-email');
    // Opening the link (as a mail scanner would) shows a page and changes nothing.
    const page = await get(`${link.pathname}${link.search}`, {});
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    await page.arrayBuffer();
    await problemOf(await post('/auth/login', { email, password: PASSWORD }, {}), 403, 'email_unconfirmed');
    // Its button posts the form, as a browser does.
    const confirmed = await pressConfirmButton(system, link);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Email address confirmed');
  });

  step(3, 'signs in, turns TOTP on, and signs in again with a code', async () => {
    const login = await post('/auth/login', { email, password: PASSWORD }, {});
    expect(login.status).toBe(200);
    const first = (await login.json()) as {
      data: { two_factor_required: boolean; token: string; account_id: string };
    };
    expect(first.data.two_factor_required).toBe(false);
    session = rememberSecret(first.data.token);
    accountId = first.data.account_id;
    expect(login.headers.getSetCookie().join()).toContain(`meridian_session=${session}`);
    const account = await get('/v1/account');
    expect(await account.json()).toMatchObject({
      data: {
        account_id: accountId,
        email,
        email_confirmed: true,
        plan: 'free',
        two_factor: 'off',
        keys: [],
      },
    });

    const enrol = await post('/v1/account/2fa/enrol', {});
    expect(enrol.status).toBe(200);
    const enrolled = (await enrol.json()) as { data: { state: string; secret: string; otpauth_uri: string } };
    expect(enrolled.data).toMatchObject({
      state: 'pending',
      otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\//),
    });
    totpSecret = rememberSecret(enrolled.data.secret);
    const activate = await post('/v1/account/2fa/activate', { code: totpCode(totpSecret) });
    expect(activate.status).toBe(200);
    const activated = (await activate.json()) as { data: { state: string; recovery_codes: string[] } };
    expect(activated.data.state).toBe('active');
    expect(activated.data.recovery_codes).toHaveLength(10);
    activated.data.recovery_codes.forEach((c) => rememberSecret(c));
    expect(await (await get('/v1/account/2fa')).json()).toMatchObject({
      data: { state: 'active', enabled: true, recovery_codes_left: 10 },
    });

    // Sign out; the password alone now opens a challenge, not a session.
    expect((await post('/auth/logout', {})).status).toBe(200);
    expect((await get('/v1/account')).status).toBe(401);
    const again = await post('/auth/login', { email, password: PASSWORD }, {});
    expect(again.status).toBe(200);
    const challenged = (await again.json()) as { data: Record<string, unknown> };
    expect(challenged.data).toMatchObject({ two_factor_required: true, challenge: expect.any(String) });
    expect(challenged.data).not.toHaveProperty('token');
    const challenge = rememberSecret(challenged.data.challenge as string);
    // The activation's code is spent: the app's next one answers the challenge.
    const verified = await post(
      '/auth/2fa/verify',
      { challenge, code: totpCode(totpSecret, Date.now() + 30_000) },
      {},
    );
    expect(verified.status).toBe(200);
    const signedIn = (await verified.json()) as { data: { two_factor_required: boolean; token: string } };
    expect(signedIn.data.two_factor_required).toBe(false);
    session = rememberSecret(signedIn.data.token);
    expect(await (await get('/v1/agent/whoami')).json()).toMatchObject({
      data: { account_id: accountId, auth: 'session', plan: 'free' },
    });
  });

  step(4, 'creates an API key', async () => {
    const created = await post('/v1/keys', {});
    expect(created.status).toBe(201);
    const body = (await created.json()) as {
      data: { id: string; key: string; prefix: string; shown_once: boolean };
    };
    key = rememberSecret(body.data.key);
    expect(body.data).toMatchObject({ shown_once: true, key: expect.stringMatching(/^mk_live_/) });
    expect(key.startsWith(body.data.prefix)).toBe(true);
    const account = (await (await get('/v1/account')).json()) as { data: { keys: { id: string }[] } };
    expect(account.data.keys.map((k) => k.id)).toEqual([body.data.id]);
    // The list never shows the secret again.
    expect(JSON.stringify(account)).not.toContain(key);
    expect(await (await withKey('/v1/agent/whoami')).json()).toMatchObject({
      data: { account_id: accountId, auth: 'api_key', key_id: body.data.id, plan: 'free' },
    });
  });

  step(5, 'reads a free metric and is refused a gated one on the free plan', async () => {
    const free = await withKey(FREE_METRIC);
    expect(free.status).toBe(200);
    const envelope = (await free.json()) as {
      data: { price: number };
      meta: Record<string, unknown>;
      provenance: { method: string; sources: unknown[] };
    };
    expect(envelope.data.price).toBeGreaterThan(1000);
    expect(envelope.provenance.sources.length).toBeGreaterThan(0);
    expect(free.headers.get('ratelimit-limit')).toBe('10');
    expect(free.headers.get('ratelimit-policy')).toBe('"per-key";q=10;w=60');
    expect(Number(free.headers.get('ratelimit-remaining'))).toBeLessThan(10);
    expect(free.headers.get('ratelimit-reset')).toMatch(/^\d+$/);

    const gated = await withKey(PRO_METRIC);
    const problem = await problemOf(gated, 403, 'tier_forbidden');
    expect(problem.detail).toMatch(/crypto\/options\/chain.*pro/);
    expect(problem.retryable).toBe(false);
  });

  step(6, 'hits the rate limit of the free plan', async () => {
    // Sequential reads until the bucket of 10 a minute is spent (one token comes back every 6 s).
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 15 && !refused; i++) {
      const res = await withKey(FREE_METRIC);
      statuses.push(res.status);
      if (res.status === 429) refused = res;
      else await res.arrayBuffer();
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    // Ten tokens, one or two spent by step 5, at most one back meanwhile.
    expect(statuses.length).toBeGreaterThanOrEqual(8);
    expect(statuses.length).toBeLessThanOrEqual(11);
    const problem = await problemOf(refused!, 429, 'rate_limit');
    expect(problem.retryable).toBe(true);
    expect(problem.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused!.headers.get('retry-after')).toBe(String(problem.retry_after));
    expect(refused!.headers.get('ratelimit-limit')).toBe('10');
    expect(refused!.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused!.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(problem.retry_after!);
    expect(refused!.headers.get('ratelimit-policy')).toBe('"per-key";q=10;w=60');
    expect(refused!.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
  });

  step(7, 'pays one call with x402 from a wallet, no key', async () => {
    const challenge = await fetch(url(FREE_METRIC));
    expect(challenge.status).toBe(402);
    const required = await read(challenge, paymentRequiredSchema);
    expect(required.accepts[0]).toMatchObject({
      network: facilitator.network,
      amount: '10000',
      payTo: facilitator.payTo,
      asset: facilitator.mint,
    });
    const sellerBefore = await facilitator.balance(facilitator.payTo);
    const walletBefore = await facilitator.balance(wallet.address);
    const { pay, sent } = await payingFetch(facilitator, wallet);
    const paid = await pay(url(FREE_METRIC));
    expect(paid.status).toBe(200);
    expect(sent).toHaveLength(1);
    expect(((await paid.json()) as { data: { price: number } }).data.price).toBeGreaterThan(1000);
    const receipt = settleReceiptSchema.parse(
      decodePaymentResponseHeader(paid.headers.get('payment-response')!),
    );
    expect(receipt).toMatchObject({ success: true, network: facilitator.network, payer: wallet.address });
    expect((await facilitator.balance(facilitator.payTo)) - sellerBefore).toBe(10_000n);
    expect(walletBefore - (await facilitator.balance(wallet.address))).toBe(10_000n);
    // The same payment twice is refused.
    const replayed = await fetch(url(FREE_METRIC), { headers: { 'payment-signature': sent[0]! } });
    expect(replayed.status).toBe(402);
    expect(((await replayed.json()) as { error: string }).error).toMatch(/^payment_replayed: /);
  });

  step(
    8,
    'tops the credit up by an on-chain deposit',
    async () => {
      const before = await read(await get('/v1/credits'), creditsAnswerSchema);
      expect(before).toMatchObject({
        balance_atomic: 0,
        entries: [],
        topup: {
          deposit_address: depositAddress,
          memo: `top-${accountId}`,
          network: facilitator.network,
          asset: facilitator.mint,
        },
      });
      // The person's wallet pays the deposit address with the memo the portal shows.
      depositSignature = await facilitator.transfer({
        from: wallet,
        to: before.topup.deposit_address,
        amount: TOP_UP,
        memo: before.topup.memo,
      });
      // Billing's watcher reads the chain every 300 ms.
      const deadline = Date.now() + 20_000;
      let credited = before;
      while (credited.balance_atomic === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        credited = await read(await get('/v1/credits'), creditsAnswerSchema);
      }
      expect(credited.balance_atomic).toBe(TOP_UP);
      expect(credited.balance_usd).toBe(300);
      expect(credited.entries).toEqual([
        expect.objectContaining({
          reason: 'topup_usdc',
          direction: 'credit',
          delta_atomic: TOP_UP,
          actor: 'deposit-watcher',
        }),
      ]);
      expect(JSON.stringify(credited.entries[0])).toContain(depositSignature);
    },
    45_000,
  );

  step(
    9,
    'subscribes to the pro data plan and an audit subscription from credit',
    async () => {
      const prices = (await read(await fetch(url('/v1/billing/prices')), enveloped(pricesSchema))).data;
      const pro = prices.plans.find((p) => p.plan === 'pro')!;
      const auditBase = prices.audit_subscriptions.find((s) => s.tier === 'audit_base')!;

      const plan = await post('/v1/billing/plan', { plan: 'pro' });
      expect(plan.status).toBe(200);
      expect((await read(plan, enveloped(planSubscriptionSchema))).data).toMatchObject({
        plan: 'pro',
        active: true,
      });
      // billing announces the plan, identity applies it and tells the gateway: the key now reads the pro metric.
      const opened = await until(
        () => withKey(PRO_METRIC),
        (res) => res.status === 200,
      );
      expect(opened.status).toBe(200);
      expect(opened.headers.get('ratelimit-limit')).toBe(String(pro.rate_limit_per_minute));
      const chain = (await opened.json()) as { data: { underlying: string; options: unknown[] } };
      expect(chain.data.underlying).toBe('BTC');
      expect(chain.data.options.length).toBeGreaterThan(0);
      expect(await (await get('/v1/account')).json()).toMatchObject({ data: { plan: 'pro' } });

      const subscribed = await post('/v1/audit/subscribe', { tier: 'audit_base' });
      expect(subscribed.status).toBe(200);
      expect((await read(subscribed, enveloped(subscriptionSchema))).data).toMatchObject({
        tier: 'audit_base',
        active: true,
      });
      const credits = await read(await get('/v1/credits'), creditsAnswerSchema);
      expect(credits.balance_atomic).toBe(TOP_UP - pro.monthly_price_atomic! - auditBase.price_atomic!);
    },
    45_000,
  );

  step(10, 'verifies a domain by its DNS TXT record', async () => {
    const added = await post('/v1/analysis/domains', { domain: DOMAIN });
    expect(added.status).toBe(201);
    const domain = (
      (await added.json()) as {
        data: {
          domain: string;
          status: string;
          verified: boolean;
          verification: { type: string; name: string; value: string };
        };
      }
    ).data;
    expect(domain).toMatchObject({
      domain: DOMAIN,
      status: 'pending',
      verified: false,
      verification: {
        type: 'TXT',
        name: `_meridian-verify.${DOMAIN}`,
        value: expect.stringMatching(/^meridian-verify=/),
      },
    });
    const early = await get(`/v1/analysis/verify?domain=${DOMAIN}`);
    expect(early.status).toBe(200);
    expect(await early.json()).toMatchObject({ data: { found: false, verified: false, status: 'pending' } });

    dns.zone.TXT.set(domain.verification.name, [domain.verification.value]);
    const verified = await get(`/v1/analysis/verify?domain=${DOMAIN}`);
    expect(verified.status).toBe(200);
    expect(await verified.json()).toMatchObject({
      data: {
        domain: DOMAIN,
        found: true,
        verified: true,
        status: 'verified',
        verified_at: expect.any(String),
      },
    });
  });

  step(
    11,
    'runs an audit of the local site, covered by the subscription, and follows its live trace',
    async () => {
      const entitlement = (await (await get('/v1/analysis/entitlement')).json()) as {
        data: { tiers: { tier: string; covered_by_subscription: boolean; charge_atomic: number | null }[] };
      };
      expect(entitlement.data.tiers.find((t) => t.tier === 'audit_base')).toMatchObject({
        covered_by_subscription: true,
        charge_atomic: 0,
      });
      const run = await post(
        '/v1/analysis/run',
        { domain: DOMAIN, tier: 'audit_base' },
        {
          ...bearer(),
          'idempotency-key': `journey-${accountId}`,
        },
      );
      expect(run.status).toBe(201);
      const view = (
        (await run.json()) as {
          data: {
            id: string;
            status: string;
            payment: string;
            amount_atomic: number;
            links: { trace: string };
          };
        }
      ).data;
      expect(view).toMatchObject({
        domain: DOMAIN,
        tier: 'audit_base',
        status: 'queued',
        payment: 'subscription',
        amount_atomic: 0,
      });
      runId = view.id;

      // The live trace, as server-sent events, from the start of the run to its end.
      const stream = await get(`/v1/analysis/report/${runId}/trace`, {
        ...bearer(),
        accept: 'text/event-stream',
      });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const { events, end } = await readTrace(stream);
      expect(end).toEqual({ run_id: runId, status: 'succeeded' });
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events[0]).toMatchObject({ stage: 'run', status: 'started', message: 'attempt 1 of 3' });
      expect(events.at(-1)).toMatchObject({ stage: 'run', status: 'finished' });
      const stages = new Set(events.map((e) => e.stage));
      for (const stage of ['dns', 'http', 'headers', 'content']) expect(stages).toContain(stage);

      // The same trace as JSON, once the run has finished.
      const json = await get(`/v1/analysis/report/${runId}/trace`);
      expect(json.status).toBe(200);
      const trace = (await json.json()) as { data: unknown[]; meta: { run_status: string } };
      expect(trace.meta.run_status).toBe('succeeded');
      expect(z.array(traceEventSchema).parse(trace.data)).toEqual(events);

      // The same request again (a client retrying) answers the same run, and makes no second one.
      const replayed = await post(
        '/v1/analysis/run',
        { domain: DOMAIN, tier: 'audit_base' },
        { ...bearer(), 'idempotency-key': `journey-${accountId}` },
      );
      expect(replayed.status).toBe(200);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(await replayed.json()).toMatchObject({ data: { id: runId, status: 'succeeded' } });
    },
    90_000,
  );

  step(12, 'reads the report and its PDF', async () => {
    const listed = (await (await get(`/v1/analysis/reports?domain=${DOMAIN}`)).json()) as {
      data: { id: string; status: string; grade: string }[];
    };
    expect(listed.data).toEqual([
      expect.objectContaining({ id: runId, status: 'succeeded', grade: expect.any(String) }),
    ]);

    const res = await get(`/v1/analysis/report/${runId}`);
    expect(res.status).toBe(200);
    const report = (await read(res, enveloped(reportSchema))).data;
    expect(report).toMatchObject({ run_id: runId, domain: DOMAIN, tier: 'audit_base', status: 'succeeded' });
    expect(report.grade).toBe(listed.data[0]!.grade);
    expect(report.score).toEqual(expect.any(Number));
    const ids = report.findings.map((f) => f.id);
    // The local site sends no CSP, answers no https, and does send X-Content-Type-Options.
    expect(ids).toEqual(
      expect.arrayContaining(['headers.csp.missing', 'headers.xcto.ok', 'content.title.present']),
    );
    expect(report.findings.find((f) => f.id === 'headers.csp.missing')).toMatchObject({ passed: false });

    const pdf = await get(`/v1/analysis/report/${runId}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(pdf.headers.get('cache-control')).toBe('private, no-store');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.length).toBeGreaterThan(1000);
    // Nobody else reads it: not signed out, not by the key.
    expect((await get(`/v1/analysis/report/${runId}`, {})).status).toBe(401);
  });

  step(13, 'shares the report, the link works signed out, and stops working once revoked', async () => {
    const minted = await post(`/v1/analysis/report/${runId}/share`, {});
    expect(minted.status).toBe(201);
    const share = (await read(minted, enveloped(shareLinkSchema))).data;
    rememberSecret(share.token);
    expect(share).toMatchObject({ audience: 'anyone', emails: [], expires_at: null });
    const path = new URL(share.url).pathname;
    expect(path).toBe(`/v1/analysis/shared/${share.token}`);

    const shared = await get(path, {});
    expect(shared.status).toBe(200);
    expect((await read(shared, enveloped(reportSchema))).data).toMatchObject({
      run_id: runId,
      domain: DOMAIN,
    });
    const page = await get(path, { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).toContain(DOMAIN);
    const sharedPdf = await get(`${path}/pdf`, {});
    expect(sharedPdf.status).toBe(200);
    expect(
      Buffer.from(await sharedPdf.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');

    const revoke = await fetch(url(`/v1/analysis/report/${runId}/share`), {
      method: 'DELETE',
      headers: bearer(),
    });
    expect(revoke.status).toBe(200);
    expect(await revoke.json()).toMatchObject({ data: { revoked: true } });
    await problemOf(await get(path, {}), 410, 'gone');
    await problemOf(await get(`${path}/pdf`, {}), 410, 'gone');
    const gonePage = await get(path, { accept: 'text/html' });
    expect(gonePage.status).toBe(410);
    expect(await gonePage.text()).toContain('Link revoked');
    // Revoked already: nothing live to revoke.
    expect(
      (await fetch(url(`/v1/analysis/report/${runId}/share`), { method: 'DELETE', headers: bearer() }))
        .status,
    ).toBe(404);
  });

  step(14, 'files a service request', async () => {
    const first = await post('/v1/requests', { kind: 'pentest', domain: DOMAIN, detail: 'after the audit' });
    expect(first.status).toBe(200);
    expect(await read(first, serviceRequestAnswerSchema)).toEqual({ ok: true, count: 1 });
    const again = await post('/v1/requests', { kind: 'pentest', domain: DOMAIN.toUpperCase() });
    expect(await read(again, serviceRequestAnswerSchema)).toEqual({ ok: true, count: 2 });
    await problemOf(await post('/v1/requests', { kind: 'pentest' }), 400, 'validation_failed');
  });

  step(15, 'books a consulting slot from credit and gets the mail', async () => {
    const slots = (await read(await get('/v1/consulting/slots'), enveloped(z.array(slotSchema)))).data;
    // A slot past the hour of notice.
    const slot = slots.find((s) => s.available && Date.parse(s.starts_at) > Date.now() + 2 * 3_600_000)!;
    expect(slot).toBeDefined();
    const booked = await post('/v1/consulting/bookings', {
      starts_at: slot.starts_at,
      topic: 'the audit findings',
    });
    expect(booked.status).toBe(201);
    const booking = (await read(booked, enveloped(bookingSchema))).data;
    expect(booking).toMatchObject({
      starts_at: slot.starts_at,
      status: 'confirmed',
      payment: 'credit',
      topic: 'the audit findings',
    });
    bookingId = booking.id;
    const listed = (await read(await get('/v1/consulting/bookings'), enveloped(z.array(bookingSchema)))).data;
    expect(listed.map((b) => b.id)).toEqual([bookingId]);
    const after = (await read(await get('/v1/consulting/slots'), enveloped(z.array(slotSchema)))).data;
    expect(after.find((s) => s.starts_at === slot.starts_at)).toMatchObject({ available: false });
    // Identity mails the confirmation (the second mail, after the confirmation link).
    const mail = await mailTo(smtp, email, 2);
    expect(mail.text).toContain(bookingId);
    expect(mail.text).toContain('Topic:   the audit findings');
  });

  step(
    16,
    'reads a billing history showing the top-up, the plan, the subscription and the booking',
    async () => {
      const res = await get('/v1/account/billing/history');
      expect(res.status).toBe(200);
      const history = (await res.json()) as { data: unknown[]; meta: { truncated: boolean } };
      const rows = z.array(billingHistoryRowSchema).parse(history.data);
      expect(history.meta.truncated).toBe(false);
      const prices = (await read(await fetch(url('/v1/billing/prices')), enveloped(pricesSchema))).data;
      const price = {
        plan: prices.plans.find((p) => p.plan === 'pro')!.monthly_price_atomic!,
        subscription: prices.audit_subscriptions.find((s) => s.tier === 'audit_base')!.price_atomic!,
        booking: prices.consulting.find((c) => c.kind === 'consulting')!.price_atomic!,
      };
      // Newest first.
      expect(rows.map((r) => [r.reason, r.direction, r.amount_atomic, r.balance_delta_atomic])).toEqual([
        ['booking', 'debit', price.booking, -price.booking],
        ['subscription', 'debit', price.subscription, -price.subscription],
        ['data_plan', 'debit', price.plan, -price.plan],
        ['topup_usdc', 'credit', TOP_UP, TOP_UP],
      ]);
      expect(rows[0]).toMatchObject({ kind: 'ledger', ref: bookingId, tx_signature: null });
      expect(rows[1]!.ref).toMatch(/^sub-/);
      expect(rows[2]!.ref).toMatch(/^sub-/);
      expect(rows[3]).toMatchObject({ kind: 'ledger', tx_signature: depositSignature });
      const credits = await read(await get('/v1/credits'), creditsAnswerSchema);
      expect(credits.balance_atomic).toBe(rows.reduce((sum, r) => sum + r.balance_delta_atomic, 0));
      expect(credits.balance_atomic).toBe(TOP_UP - price.plan - price.subscription - price.booking);
      // The ledger behind it, entry for entry.
      expect(credits.entries.map((e) => `ledger:${e.id}`)).toEqual(rows.map((r) => r.id));

      // Page by page: two rows, then the cursor resumes after them.
      const page = (query: string) =>
        get(`/v1/account/billing/history?${query}`).then(
          async (r) => (await r.json()) as { data: { id: string }[]; meta: { next_cursor: string | null } },
        );
      const first = await page('limit=2');
      expect(first.data.map((r) => r.id)).toEqual(rows.slice(0, 2).map((r) => r.id));
      expect(first.meta.next_cursor).toEqual(expect.any(String));
      const second = await page(`limit=2&cursor=${encodeURIComponent(first.meta.next_cursor!)}`);
      expect(second.data.map((r) => r.id)).toEqual(rows.slice(2).map((r) => r.id));
    },
  );
});
