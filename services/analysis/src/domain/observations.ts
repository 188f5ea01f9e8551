/**
 * What the probes saw, as plain data: the checks in ./checks turn these into findings. Nothing
 * here does I/O; the adapters under src/adapters/scanner fill them in.
 */

export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export interface SpfEvaluation {
  /** The v=spf1 record of the domain, null when there is none. */
  record: string | null;
  /** How many v=spf1 records the domain publishes (more than one is a permerror). */
  records: number;
  /** DNS-querying terms counted over the whole include/redirect tree (RFC 7208 4.6.4). */
  lookups: number;
  /** Lookups that answered no record (RFC 7208 4.6.4 allows two). */
  void_lookups: number;
  /** The qualifier and mechanism closing the policy: `-all`, `~all`, `?all`, `+all`, or null. */
  all: string | null;
  errors: string[];
}

export interface MailObservation {
  spf: SpfEvaluation;
  /** TXT records at _dmarc.<domain> that start with v=DMARC1. */
  dmarc: string[];
  mx: { exchange: string; priority: number }[];
}

export interface DnsObservation {
  addresses: string[];
  caa: { tag: string; value: string; critical: boolean }[];
  dnssec: 'validated' | 'signed' | 'unsigned' | 'unknown';
}

export interface TlsObservation {
  host: string;
  protocol: string | null;
  versions: Record<TlsVersion, boolean>;
  certificate: {
    subject: string;
    issuer: string;
    valid_from: string;
    valid_to: string;
    san: string[];
  } | null;
  chain_valid: boolean;
  chain_error: string | null;
  hostname_match: boolean;
  hostname_error: string | null;
}

export type Headers = Record<string, string | string[] | undefined>;

export interface Response {
  url: string;
  status: number;
  headers: Headers;
  body: string;
  bytes: number;
  truncated: boolean;
  ttfbMs: number;
}

export interface HttpObservation {
  /** The chain of responses from http://<domain>/, or why it failed. */
  plain: Response[] | null;
  plain_error: string | null;
  /** The chain of responses from https://<domain>/, or why it failed. */
  secure: Response[] | null;
  secure_error: string | null;
}

/** One probe of a path that should not be public. */
export interface FileProbe {
  path: string;
  status: number;
  bytes: number;
  /** The start of the body (up to 4 KiB). */
  head: string;
  content_type: string;
}

/** The file probes of one scheme the site answers (`http://<domain>` or `https://<domain>`). */
export interface FilesObservation {
  origin: string;
  /** The answer to a random path that cannot exist: how this site says "not found". */
  baseline: FileProbe;
  probes: FileProbe[];
}

/** A fetched text resource (security.txt, robots.txt, sitemap.xml); null when not fetched. */
export interface TextResource {
  url: string;
  status: number;
  content_type: string;
  body: string;
}
