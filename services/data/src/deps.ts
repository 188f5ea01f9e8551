import type { Catalog } from '@meridian/contracts';
import type { ServiceDeps } from '@meridian/runtime';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { MetricAnswer, ReplayNote } from './domain/metric-resolver.js';
import type { ReferencePrice } from './domain/spot/reference-price.js';
import type { AnswerCache } from './flows/answer-cache.js';
import type { Ingestor } from './flows/ingestor.js';
import type { FirstLoad } from './jobs/first-load.js';
import type { LiveIngest } from './jobs/live-ingest.js';
import type { DerivedPerp } from './jobs/derivatives/perp-replay.js';

interface CachedPrice {
  value: ReferencePrice | undefined;
  until: number;
  /** The answer without its age-dependent fields, built once per computed price. */
  answer: Omit<MetricAnswer, 'staleness_ms' | 'confidence'> | undefined;
}

/** Reference prices by `entity|source`. */
export type PriceCache = Map<string, CachedPrice>;

/** What every part of this service gets: the chassis' deps and data's own. */
export interface DataDeps extends ServiceDeps<Database, Config> {
  /** The catalogue the running mode serves (catalogFor(INGEST_MODE)): /v1/catalog, the data routes, ingestion. */
  catalog: Catalog;
  /** The ingestion function bound to this process; it tells the caches when a batch changed data. */
  ingestor: Ingestor;
  /** Every metric's answers computed lately, until the data behind them changes (flows/answer-cache.ts). */
  answers: AnswerCache;
  /** Reference prices computed lately, dropped by any candle batch this process ingests. */
  prices: PriceCache;
  /** The replay's first load after start: while it runs, a metric without data answers 503, `/ready` waits. */
  firstLoad: FirstLoad;
  /** Says so when an answer rests on replayed recordings (INGEST_MODE=replay). */
  replayNote(answer: MetricAnswer): ReplayNote | undefined;
  /**
   * The perps (`venue:symbol`) whose marks and funding rates the replay derives from recorded trade
   * bars, which the answers must say; empty unless INGEST_MODE=replay.
   */
  derivedPerps: ReadonlyMap<string, DerivedPerp>;
  /** The live connectors (INGEST_MODE=live), started by main.ts; their state is in `/ready` details. */
  live: LiveIngest | undefined;
  /** The wall clock the routes answer at (ms since the epoch); tests set the instant they read at. */
  now: () => number;
}

export const SERVICE = 'data';
