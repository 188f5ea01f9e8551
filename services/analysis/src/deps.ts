import type { ServiceDeps } from '@meridian/runtime';
import type { DnsClient } from './adapters/dns.js';
import type { TraceFeed } from './adapters/trace-feed.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { OpenStreams } from './domain/trace-streams.js';
import type { DemoSiteTarget } from './flows/pipeline/context.js';
import type { RunPipeline } from './flows/run-pipeline.js';

/** What every part of this service gets: the chassis' deps and analysis' own parts. */
export interface AnalysisDeps extends ServiceDeps<Database, Config> {
  /** Verification and provider lookups through DNS_SERVERS. */
  dns: DnsClient;
  /** AES-256 key that seals audit credentials at rest. */
  credentialsKey: Buffer;
  /** Names this replica in a run's `worker` column (host, pid and a random part). */
  workerId: string;
  /** The audit itself (src/flows/run-pipeline.ts); tests put a stand-in of their own here. */
  pipeline: RunPipeline;
  /** `pnpm start`'s demo site, the one loopback target the scanner may reach; null elsewhere. */
  demoSite: DemoSiteTarget | null;
  /** Wakes this replica's trace streams when a run's trace or status changed. */
  traces: TraceFeed;
  /** This replica's open trace streams, within TRACE_STREAMS_PER_RUN and _PER_ACCOUNT. */
  streams: OpenStreams;
}

export const SERVICE = 'analysis';
