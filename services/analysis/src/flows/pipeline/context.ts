import { rootCertificates } from 'node:tls';
import type { AuditTier, Finding, Report } from '@meridian/contracts';
import type { ScannerOptions } from '../../adapters/scanner/http.js';
import { createScannerResolver, type ScannerResolver } from '../../adapters/scanner/resolver.js';
import type { StageName } from '../../domain/delivery.js';
import type { HttpObservation, Response } from '../../domain/observations.js';
import type { Authorization } from '../../domain/scope.js';
import type { Config } from '../../config.js';

type PipelineConfig = Pick<
  Config,
  | 'DNS_SERVERS'
  | 'SCANNER_ALLOW_LOOPBACK'
  | 'SCANNER_HTTP_PORT'
  | 'SCANNER_HTTPS_PORT'
  | 'SCANNER_TIMEOUT_MS'
  | 'SCANNER_MAX_BODY_BYTES'
  | 'SCANNER_ACTIVE_DELAY_MS'
  | 'SCANNER_ACTIVE_MAX_REQUESTS'
>;

/** The all-in-one's demo site (packages/local-demo): loopback allowed for its name alone. */
export interface DemoSiteTarget {
  host: string;
  httpPort: number;
  httpsPort: number;
  ca: string[];
}

export interface PipelineDeps {
  config: PipelineConfig;
  demoSite?: DemoSiteTarget | null;
  /** Trust anchors of the TLS chain check; unset: Node's bundled roots (tests add their CA). */
  scannerCa?: string[];
  /** A resolver other than the one DNS_SERVERS names (tests only). */
  scannerResolver?: ScannerResolver;
  now?: () => Date;
}

export interface PipelineInput {
  run_id: string;
  domain: string;
  tier: AuditTier;
  authorization?: Authorization | null;
  credentials?: { username: string; password: string; login_url?: string } | null;
  previous?: Report | null;
}

type TraceStatus = 'started' | 'finished' | 'failed' | 'info';
export type Trace = (stage: string, status: TraceStatus, message: string) => Promise<void> | void;

/** The run reached nothing: no address, no HTTP, no HTTPS. The run fails (not our checks). */
export class NothingReachable extends Error {
  override name = 'NothingReachable';
}

/** What the stages share: the run, the scanner, and what earlier stages saw of the site. */
export interface StageContext {
  input: PipelineInput;
  /** The audited domain, lower case, without a trailing dot. */
  domain: string;
  config: PipelineConfig;
  options: ScannerOptions;
  now: () => Date;
  trace: Trace;
  /** The http stage's fetches of http:// and https:// (null until it ran). */
  http: HttpObservation | null;
  /** The schemes the site answers, as origins (`https://<domain>` first): what later stages test. */
  origins: string[];
  /** The final answer of the home page, https preferred. */
  page: Response | null;
  /** The session of an authenticated audit, as a Cookie header. */
  sessionCookie: string | null;
  /** Every Set-Cookie line seen so far (redirects, the page, the login). */
  seenCookies: string[];
}

/** One stage of the pipeline: its checks' findings; a stage that cannot run says why in a not-run finding. */
export interface Stage {
  name: StageName;
  run(ctx: StageContext): Promise<Finding[]>;
}

export const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The demo site is on loopback, which the SSRF guard refuses: for the demo's exact name (which
 * only the all-in-one's own resolver answers) the scanner may reach loopback on the demo's ports
 * and trusts the demo's CA. Every other name keeps the guard whole.
 */
function demoOptions(deps: PipelineDeps, domain: string): Partial<ScannerOptions> {
  const demo = deps.demoSite;
  if (!demo || demo.host !== domain) return {};
  return {
    policy: { allowLoopback: true },
    httpPort: demo.httpPort,
    httpsPort: demo.httpsPort,
    ca: [...(deps.scannerCa ?? rootCertificates), ...demo.ca],
  };
}

export function stageContext(deps: PipelineDeps, input: PipelineInput, trace: Trace): StageContext {
  const cfg = deps.config;
  const domain = input.domain.toLowerCase().replace(/\.$/, '');
  return {
    input,
    domain,
    config: cfg,
    options: {
      resolver:
        deps.scannerResolver ??
        createScannerResolver({ servers: cfg.DNS_SERVERS, timeoutMs: cfg.SCANNER_TIMEOUT_MS }),
      policy: { allowLoopback: cfg.SCANNER_ALLOW_LOOPBACK },
      timeoutMs: cfg.SCANNER_TIMEOUT_MS,
      maxBodyBytes: cfg.SCANNER_MAX_BODY_BYTES,
      httpPort: cfg.SCANNER_HTTP_PORT,
      httpsPort: cfg.SCANNER_HTTPS_PORT,
      ...(deps.scannerCa ? { ca: deps.scannerCa } : {}),
      ...demoOptions(deps, domain),
    },
    now: deps.now ?? (() => new Date()),
    trace,
    http: null,
    origins: [],
    page: null,
    sessionCookie: null,
    seenCookies: [],
  };
}

/** The preferred origin (https when it answers): where the one-copy resources are read. */
export const mainOrigin = (ctx: StageContext): string => ctx.origins[0] ?? `https://${ctx.domain}`;
