import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type ServiceDeps, type SharedInfra } from '@meridian/runtime';
import { dnsClient } from './adapters/dns.js';
import { TraceFeed } from './adapters/trace-feed.js';
import { routes } from './app.js';
import { parseConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { SERVICE, type AnalysisDeps } from './deps.js';
import { OpenStreams } from './domain/trace-streams.js';
import { parseKey } from '@meridian/runtime';
import { orderPaidConsumers } from './events/order-paid.js';
import { runWorkers } from './events/run-worker.js';
import { runPipeline } from './flows/run-pipeline.js';
import { startRescans } from './jobs/rescans.js';
import { startOverdueReviews } from './jobs/overdue-reviews.js';
import { startRunSweeper } from './jobs/run-sweeper.js';
import { startTraceNotices } from './jobs/trace-notices.js';

/**
 * The credentials sealing key: CREDENTIALS_KEY, else one generated at first start into
 * DATA_DIR/analysis-credentials.key (mode 0600); replicas must share CREDENTIALS_KEY.
 */
export function credentialsKeyOf(config: Config): Buffer {
  if (config.CREDENTIALS_KEY) return parseKey(config.CREDENTIALS_KEY, 'CREDENTIALS_KEY');
  const file = join(config.DATA_DIR, 'analysis-credentials.key');
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return parseKey(readFileSync(file, 'utf8').trim(), file);
}

type Parts = Omit<AnalysisDeps, keyof ServiceDeps<Database, Config>>;

/** The all-in-one's demo site with its CA, when `pnpm start` set DEMO_SITE and DEMO_SITE_CA. */
function demoSiteOf(config: Config): Parts['demoSite'] {
  if (!config.DEMO_SITE || !config.DEMO_SITE_CA) return null;
  return { ...config.DEMO_SITE, ca: [readFileSync(config.DEMO_SITE_CA, 'utf8')] };
}

/** Analysis' own parts, added to the chassis' deps; tests may replace some (the pipeline). */
export function analysisParts(config: Config, overrides: Partial<Parts> = {}): Parts {
  return {
    dns: dnsClient(config.DNS_SERVERS),
    credentialsKey: credentialsKeyOf(config),
    workerId: `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`,
    pipeline: runPipeline,
    demoSite: demoSiteOf(config),
    traces: new TraceFeed(config.DATABASE_URL !== undefined),
    streams: new OpenStreams({
      perRun: config.TRACE_STREAMS_PER_RUN,
      perAccount: config.TRACE_STREAMS_PER_ACCOUNT,
      total: config.TRACE_STREAMS_TOTAL,
    }),
    ...overrides,
  };
}

/** Composition root: the only place that reads the environment. */
export async function start(
  env: Record<string, string | undefined>,
  shared?: SharedInfra,
  overrides?: Partial<Parts>,
) {
  const config = parseConfig(env);
  const parts = analysisParts(config, overrides);
  const full = (deps: ServiceDeps<Database, Config>): AnalysisDeps => ({ ...deps, ...parts });
  return startService(
    {
      name: SERVICE,
      schema: SERVICE,
      config,
      migrations,
      // BILLING too: analysis consumes its paid orders and may start before it.
      streams: [STREAMS.analysis, STREAMS.analysisRuns, STREAMS.billing],
      outbox: true,
      routes: (deps) => routes(full(deps)),
      consumers: (deps) => [...orderPaidConsumers(full(deps)), ...runWorkers(full(deps))],
      background: (deps) => [
        startRunSweeper(full(deps)),
        startRescans(full(deps)),
        startOverdueReviews(full(deps)),
        startTraceNotices(full(deps)),
      ],
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
