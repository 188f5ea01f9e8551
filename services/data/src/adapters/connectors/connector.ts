import type { IngestBatchInput } from '@meridian/contracts';
import type { UpstreamHttp } from './upstream-http.js';

/** Keys some upstreams ask for; a connector that needs one is not started without it. */
export interface ConnectorKeys {
  FRED_API_KEY?: string | undefined;
  /** EIA API v2 (commodities/energy): free, from the EIA's registration page. */
  EIA_API_KEY?: string | undefined;
  NCBI_API_KEY?: string | undefined;
  /** Who to write to about our traffic (NCBI's `email`, SEC-style user agents); optional. */
  INGEST_CONTACT?: string | undefined;
  /** Open-Meteo's free API is for non-commercial use; a commercial plan's key (customer-api). */
  OPEN_METEO_API_KEY?: string | undefined;
  /** NYC Open Data (Socrata) app token: a higher rate limit than anonymous requests. */
  SOCRATA_APP_TOKEN?: string | undefined;
  /**
   * ESPN's site API is unofficial and ESPN's terms allow personal, non-commercial use only: the espn
   * connector runs only once the operator states what permits it (a licence, or a personal deployment).
   */
  ESPN_LICENCE?: string | undefined;
}

/**
 * One poll of an upstream: its answers parsed into ingestion batches, all written together or none
 * (flows/ingest.ts, ingestAll). Throws an UpstreamError (upstream-http.ts) when the upstream fails;
 * anything else thrown counts as a malformed answer. May keep state between polls (a trade cursor).
 */
export type Poll = (http: UpstreamHttp, now: Date) => Promise<IngestBatchInput[]>;

/**
 * A live upstream: one module per upstream under src/adapters/connectors/, listed in
 * index.ts. Started by src/jobs/live-ingest.ts when INGEST_MODE=live.
 */
export interface ConnectorDefinition {
  /** Unique, snake_case: the `connector` label of the metrics and the key of `/ready` details. */
  name: string;
  /** The catalogue products it feeds, `category/product`. */
  products: string[];
  /** The upstream's base URL; `INGEST_URL_<NAME>` (name in upper case) replaces it. */
  url: string;
  /** Time between polls when all is well; `INGEST_EVERY_<NAME>` (ms) replaces it. */
  cadenceMs: number;
  /** The keys it cannot run without. */
  needs?: (keyof ConnectorKeys)[];
  /** Said in /ready details and the connectors' README: the licence, or why this source was chosen. */
  note?: string;
  /**
   * Set for a source whose terms grant no reuse licence (or forbid automated access): the connector
   * runs only when INGEST_CONNECTORS names it, once the operator has cleared the terms; the text says why.
   */
  optIn?: string;
  /** A fresh poller against `url` (a test points it at a server on loopback). */
  open(url: string, keys: ConnectorKeys): Poll;
}
