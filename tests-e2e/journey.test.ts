import { afterAll, beforeAll, describe, it } from '@jest/globals';
import {
  startDnsPeer,
  startSmtp,
  startX402Facilitator,
  type DnsPeer,
  type X402Facilitator,
} from '@meridian/test-peers';
import { confirmByMailedLink, createApiKey, signInWithTotp, signUp } from './src/journey/account-steps.js';
import {
  readReportAndPdf,
  runCoveredAudit,
  shareAndRevokeReport,
  verifyDomainByTxt,
} from './src/journey/audit-steps.js';
import { readBillingHistory, subscribeFromCredit, topUpByDeposit } from './src/journey/credit-steps.js';
import { hitFreeRateLimit, payOneCallWithX402, readFreeAndGatedMetric } from './src/journey/data-steps.js';
import { DOMAIN, FREE_METRIC, Journey } from './src/journey/journey.js';
import { bookConsultingSlot, fileServiceRequest } from './src/journey/requests-steps.js';
import { startSite, type Site } from './src/site.js';
import { replayLoaded, startSystem, type System } from './src/system.js';

/**
 * End to end: one person's journey through the public HTTP interface only (the
 * gateway's URL), every service and the gateway their own processes on the machine's Postgres and
 * NATS, the outside world played by peers on loopback: a real SMTP server catching the mail, a DNS
 * server holding the domain's records, a small site to audit, and one LiteSVM chain carrying both
 * the x402 payment (through the local facilitator) and the deposit that tops the credit up. The
 * steps run in order and each builds on the ones before it; their bodies live in src/journey/, one
 * module per topic, and share one Journey (what each step learns for the ones after it).
 */
describe("one person's journey through the gateway", () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let dns: DnsPeer;
  let site: Site;
  let facilitator: X402Facilitator;
  let journey: Journey;
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
    const depositAddress = depositWallet.address;
    const wallet = await facilitator.wallet({ usdc: 1_000_000_000, sol: 1 });
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
    journey = new Journey({ system, smtp, dns, facilitator, depositAddress, wallet });
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
  const step = (n: number, name: string, body: (j: Journey) => Promise<void>, timeout?: number) =>
    it(
      `${n} ${name}`,
      async () => {
        if (passed !== n - 1) throw new Error(`step ${passed + 1} did not pass; the journey stops there`);
        const stepStarted = Date.now();
        await body(journey);
        timings[`step${n}`] = Date.now() - stepStarted;
        passed = n;
      },
      timeout,
    );

  step(1, 'signs up', signUp);
  step(2, 'confirms by the mailed link', confirmByMailedLink);
  step(3, 'signs in, turns TOTP on, and signs in again with a code', signInWithTotp);
  step(4, 'creates an API key', createApiKey);
  step(5, 'reads a free metric and is refused a gated one on the free plan', readFreeAndGatedMetric);
  step(6, 'hits the rate limit of the free plan', hitFreeRateLimit);
  step(7, 'pays one call with x402 from a wallet, no key', payOneCallWithX402);
  step(8, 'tops the credit up by an on-chain deposit', topUpByDeposit, 45_000);
  step(
    9,
    'subscribes to the pro data plan and an audit subscription from credit',
    subscribeFromCredit,
    45_000,
  );
  step(10, 'verifies a domain by its DNS TXT record', verifyDomainByTxt);
  step(
    11,
    'runs an audit of the local site, covered by the subscription, and follows its live trace',
    runCoveredAudit,
    90_000,
  );
  step(12, 'reads the report and its PDF', readReportAndPdf);
  step(
    13,
    'shares the report, the link works signed out, and stops working once revoked',
    shareAndRevokeReport,
  );
  step(14, 'files a service request', fileServiceRequest);
  step(15, 'books a consulting slot from credit and gets the mail', bookConsultingSlot);
  step(
    16,
    'reads a billing history showing the top-up, the plan, the subscription and the booking',
    readBillingHistory,
  );
});
