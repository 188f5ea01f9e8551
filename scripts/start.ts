/**
 * All-in-one start: the gateway and every service in one process. With DATABASE_URL and NATS_URL
 * unset it uses an embedded PGlite persisted under DATA_DIR and the in-process bus; with them set,
 * the real servers. Stops cleanly on Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createMemoryBus, openBusJournal, openMemoryBus } from '@meridian/bus';
import { openDatabase, openPGlite, serveCommands, type CommandIo } from '@meridian/db';
import { createLogger, createMetrics } from '@meridian/observability';
import { start as startGateway } from '@meridian/gateway';
import { start as startAnalysis } from '@meridian/analysis';
import { start as startBilling } from '@meridian/billing';
import { start as startData } from '@meridian/data';
import { start as startIdentity } from '@meridian/identity';
import { start as startMcp } from '@meridian/mcp';
import { start as startRequests } from '@meridian/requests';
import { start as startX402 } from '@meridian/x402';
import { start as startPortal } from '@meridian/portal';
import { BUS_JOURNAL_SCHEMA, collectGarbage, type SharedInfra } from '@meridian/runtime';
// The gate of the local chain only: LiteSVM and the Solana clients load in the chain's own process.
import { localDepositWallet, startLazyLocalChain, writeLocalChain } from '@meridian/local-chain';
import { DEMO_HOST, startDemoResolver, startDemoSite } from '@meridian/local-demo';

type Closers = Array<() => Promise<void>>;

const SERVICES = {
  identity: startIdentity,
  billing: startBilling,
  analysis: startAnalysis,
  data: startData,
  x402: startX402,
  requests: startRequests,
  portal: (env: Record<string, string | undefined>) => startPortal(env),
} as const;

/**
 * The operators' commands, run by this process when it holds the embedded database: the command
 * line finds the socket under DATA_DIR and this process, the one writer, runs it (loaded then). A
 * command that asks another service (requests:admin checks its operator with identity) is lent
 * this process's in-process bus.
 */
const operatorCommands = (bus: SharedInfra['bus']) => ({
  'analysis:admin': async () => (await import('../services/analysis/scripts/admin.js')).main,
  'billing:admin': async () => (await import('../services/billing/scripts/admin.js')).main,
  'identity:admin': async () => (await import('../services/identity/scripts/admin.js')).main,
  'requests:admin': async () => {
    const { main } = await import('../services/requests/scripts/admin.js');
    return (argv: string[], io: CommandIo) => main(argv, io, bus);
  },
  'data:import': async () => (await import('../services/data/scripts/import.js')).main,
});

/** Without the socket (a path too long for one, say) the system still runs; the commands then refuse. */
async function serveOperatorCommands(
  dataDir: string,
  shared: SharedInfra & { pglite: NonNullable<SharedInfra['pglite']> },
  env: Record<string, string | undefined>,
  closers: Closers,
): Promise<void> {
  try {
    closers.push(await serveCommands(dataDir, shared.pglite, operatorCommands(shared.bus), env));
  } catch (err) {
    console.error(`operators' commands are not served: ${err instanceof Error ? err.message : String(err)}`);
  }
}

type Env = Record<string, string | undefined>;

/** Without DATABASE_URL, PGlite under DATA_DIR; without NATS_URL, the in-process bus (journaled on PGlite). */
async function openEmbedded(env: Env, dataDir: string, shared: SharedInfra, closers: Closers): Promise<void> {
  if (!env.DATABASE_URL) {
    const pglite = await openPGlite(join(dataDir, 'pglite'));
    shared.pglite = pglite;
    closers.push(() => pglite.close());
  }
  if (env.NATS_URL) return;
  // Failed handlers and dead letters are logged, and counted on the gateway's /metrics.
  const metrics = createMetrics('gateway');
  const logger = createLogger('bus', { level: env.LOG_LEVEL ?? 'info' });
  // On the embedded database the bus keeps its streams there: what was not consumed when the
  // process stopped (even killed) is delivered at the next start.
  const options = {
    name: 'all-in-one',
    metrics,
    logger,
    // Test-only: holds every delivery this long, so a test can kill the process in between.
    deliveryDelayMs: Number(env.BUS_TEST_DELIVERY_DELAY_MS || 0),
  };
  const bus = shared.pglite
    ? await openMemoryBus({
        ...options,
        journal: await openBusJournal(
          openDatabase({ kind: 'pglite', pglite: shared.pglite }, BUS_JOURNAL_SCHEMA).db,
          BUS_JOURNAL_SCHEMA,
        ),
      })
    : createMemoryBus(options);
  shared.bus = bus;
  shared.gatewayMetrics = metrics;
  closers.push(() => bus.close());
}

/** Every service, the MCP edge and the gateway in front of them; answers the gateway. */
async function startParts(env: Env, shared: SharedInfra, closers: Closers) {
  const urls: Record<string, string> = {};
  for (const [name, start] of Object.entries(SERVICES)) {
    const running = await start({ ...env, PORT: '0', HOST: '127.0.0.1' }, shared);
    urls[`${name.toUpperCase()}_URL`] = running.url;
    closers.push(() => running.close());
  }
  // The MCP edge calls the gateway back with each caller's key; the gateway proxies /mcp to it.
  const gatewayPort = env.PORT ?? '8080';
  const mcp = await startMcp({
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    MERIDIAN_API_URL: env.MERIDIAN_API_URL ?? `http://127.0.0.1:${gatewayPort}`,
    // The gateway reaches the edge over loopback: the client address it writes is vouched for.
    CLIENT_ADDRESS_PROXY: env.CLIENT_ADDRESS_PROXY ?? 'loopback',
  });
  urls.MCP_URL = mcp.url;
  closers.push(() => mcp.close());
  const gateway = await startGateway(
    {
      ...env,
      ...urls,
      HOST: env.HOST ?? '0.0.0.0',
      PORT: gatewayPort,
      // Any free loopback port unless set: a second instance or another exporter may hold 9464.
      METRICS_PORT: env.METRICS_PORT ?? '0',
    },
    shared,
  );
  closers.push(() => gateway.close());
  return gateway;
}

async function main(): Promise<void> {
  const env: Env = {
    ...process.env,
    // One process: the services and the gateway share a key that exists only for this run.
    INTERNAL_AUTH_SECRET: process.env.INTERNAL_AUTH_SECRET ?? randomBytes(32).toString('hex'),
    // Links in mails and the x402 resource URL point at this gateway unless told otherwise.
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://localhost:${process.env.PORT ?? '8080'}`,
  };
  const dataDir = env.DATA_DIR ?? '.data';
  const shared: SharedInfra = {};
  const closers: Closers = [];
  await openEmbedded(env, dataDir, shared, closers);
  try {
    const payments = await localPayments(env, dataDir, closers);
    Object.assign(env, payments.env);
    const audits = await localAudits(env, dataDir, closers);
    Object.assign(env, audits.env);
    const gateway = await startParts(env, shared, closers);
    if (shared.pglite)
      await serveOperatorCommands(dataDir, { ...shared, pglite: shared.pglite }, env, closers);
    const mode = `${env.DATABASE_URL ? 'postgres' : `PGlite in ${dataDir}`}, ${env.NATS_URL ? 'NATS' : 'in-process bus'}`;
    console.log(
      `\nMeridian is up (${mode}): http://localhost:${gateway.port} (MCP: http://localhost:${gateway.port}/mcp, metrics: ${gateway.metricsUrl})\n${payments.note}\n${audits.note}\n`,
    );
  } catch (err) {
    await stop(closers);
    throw err;
  }
  let stopping = false;
  // stop() swallows each closer's failure, so its promise only says when the last one is done.
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    console.log('stopping…');
    void stop(closers).then(() => process.exit(0));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // What the start left behind (initdb's and the migrations' results, module sources' parse trees).
  collectGarbage();
}

/**
 * Money needs a chain. With FACILITATOR_URL unset (and X402_LOCAL_CHAIN not `off`) the all-in-one
 * uses the local one (@meridian/local-chain: x402's facilitator over a LiteSVM chain, one process
 * of its own) for both rails: pay per call (the facilitator, its payTo and fee payer) and deposits
 * (the deployment's deposit wallet, made once under DATA_DIR, its token account opened on the
 * chain, the deposit watcher on the chain's RPC). The chain starts at the first paid call or
 * deposit, not here: until then its facilitator (127.0.0.1:4020, or any free port when that is
 * taken) and RPC addresses are a gate in this process. SOLANA_NETWORK is the chain's id (devnet's,
 * which LiteSVM answers): the challenge, the prices, credits and quotes all name it.
 */
async function localPayments(
  env: Env,
  dataDir: string,
  closers: Closers,
): Promise<{ env: Record<string, string>; note: string }> {
  if (env.FACILITATOR_URL) return { env: {}, note: `Pay per call through ${env.FACILITATOR_URL}.` };
  if (env.X402_LOCAL_CHAIN === 'off')
    return { env: {}, note: 'Pay per call: no facilitator (X402_LOCAL_CHAIN=off).' };
  const deposits = env.DEPOSIT_ADDRESS ? undefined : localDepositWallet(dataDir);
  const chain = await startLazyLocalChain({
    dataDir,
    port: 4020,
    tokenAccounts: deposits ? [deposits.address] : [],
    log: (line) => console.log(line),
  });
  closers.push(() => chain.close());
  if (deposits)
    writeLocalChain(dataDir, {
      facilitator_url: chain.facilitatorUrl,
      rpc_url: chain.rpcUrl,
      network: chain.network,
      mint: chain.mint,
      deposit_address: deposits.address,
    });
  const port = env.PORT ?? '8080';
  // Both commands find the chain in DATA_DIR/local-chain.json, so they name DATA_DIR when it is not the default.
  const dataDirPrefix = dataDir === '.data' ? '' : `DATA_DIR=${dataDir} `;
  return {
    env: {
      FACILITATOR_URL: chain.facilitatorUrl,
      SOLANA_NETWORK: chain.network,
      X402_PAY_TO: chain.payTo,
      // The gateway names it in the challenge without asking the facilitator, which may not run yet.
      X402_FEE_PAYER: chain.feePayer,
      // The chain's RPC: billing's deposit watcher and x402's reconciliation read it.
      SOLANA_RPC_URL: chain.rpcUrl,
      ...(deposits ? { DEPOSIT_ADDRESS: deposits.address, DEPOSIT_POLL_MS: '1000' } : {}),
    },
    note:
      `Money on a local chain (facilitator ${chain.facilitatorUrl}, ${chain.network}, not mainnet; it starts at the first paid call or deposit):\n` +
      `  pay one call: ${deposits ? dataDirPrefix : `X402_FACILITATOR_URL=${chain.facilitatorUrl} `}npx -y pnpm@10 x402:pay 'http://localhost:${port}/v1/data/crypto/spot/reference_price?entity=BTC-USD'\n` +
      (deposits
        ? `  top up credit: ${dataDirPrefix}npx -y pnpm@10 deposit:pay --memo top-<account_id> --usd 25`
        : `  deposits go to DEPOSIT_ADDRESS=${env.DEPOSIT_ADDRESS}`),
  };
}

/**
 * DNS stays on this machine unless the person names resolvers (DNS_SERVERS): analysis asks the
 * all-in-one's own resolver, which answers only the demo zone and refuses every other name. Unless
 * AUDIT_DEMO is `off` it also serves the demo site (packages/local-demo), so the whole audit
 * (verify, run, report, PDF, share) can be tried offline. Deployments never run this file.
 */
async function localAudits(env: Env, dataDir: string, closers: Closers): Promise<{ env: Env; note: string }> {
  if (env.DNS_SERVERS) return { env: {}, note: `Audits resolve names through ${env.DNS_SERVERS}.` };
  const resolver = await startDemoResolver(dataDir);
  closers.push(() => resolver.close());
  if (env.AUDIT_DEMO === 'off')
    return {
      env: { DNS_SERVERS: resolver.address },
      note: 'Audits: no DNS lookup leaves this machine (set DNS_SERVERS to audit real domains).',
    };
  const site = await startDemoSite(dataDir);
  closers.push(() => site.close());
  const dir = dataDir === '.data' ? '' : `DATA_DIR=${dataDir} `;
  return {
    env: {
      DNS_SERVERS: resolver.address,
      DEMO_SITE: `${DEMO_HOST}=${site.httpPort}/${site.httpsPort}`,
      DEMO_SITE_CA: site.caFile,
    },
    note:
      `Try an audit offline: add the domain ${DEMO_HOST} (a demo site this machine serves), publish its TXT record with\n` +
      `  ${dir}npx -y pnpm@10 demo:txt --name _meridian-verify.${DEMO_HOST} --value meridian-verify=<token shown in the portal>\n` +
      '  No DNS lookup leaves this machine: set DNS_SERVERS (e.g. 1.1.1.1:53) to audit real domains.',
  };
}

async function stop(closers: Closers): Promise<void> {
  for (const close of closers.reverse()) await close().catch(() => {});
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
