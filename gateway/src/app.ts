import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Bus, Closable } from '@meridian/bus';
import { createHttpApp, finishApp } from '@meridian/http-kit';
import type { Logger, Metrics } from '@meridian/observability';
import { probeRouter } from '@meridian/runtime';
import { AssertionSigner, callerAssertion } from './assertion.js';
import { followIdentityEvents, identityCaches, type IdentityCaches } from './auth/identity.js';
import type { Config } from './config.js';
import { dataEdge } from './data-edge.js';
import { documentsRouter } from './documents/router.js';
import { corsHeaders, corsPolicy, isPreflight, type CorsPolicy } from './domain/cors.js';
import { isDataPath } from './domain/data-route.js';
import { keyFormatValid } from './domain/key-format.js';
import type { X402Settings } from './domain/payment-required.js';
import { planPolicies } from './domain/token-bucket.js';
import { portalAuth } from './portal-auth.js';
import { serviceProxy } from './proxy.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limit/limiter.js';
import { RedisRateLimiter } from './rate-limit/redis.js';
import type { ServiceName } from './route-table.js';

export interface Deps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  assertionKey: Uint8Array;
  bus: Bus;
}

export interface Gateway {
  handler: RequestListener;
  app: Express;
  caches: IdentityCaches;
  limiter: RateLimiter;
  close(): Promise<void>;
}

export function serviceTargets(config: Config): Record<ServiceName, string> {
  return {
    identity: config.IDENTITY_URL,
    billing: config.BILLING_URL,
    analysis: config.ANALYSIS_URL,
    data: config.DATA_URL,
    x402: config.X402_URL,
    requests: config.REQUESTS_URL,
  };
}

function x402Settings(config: Config): X402Settings {
  return { payTo: config.X402_PAY_TO, feePayer: config.X402_FEE_PAYER };
}

function cors(policy: CorsPolicy) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const preflight = isPreflight(req.method, req.headers);
    const headers = corsHeaders(policy, req.header('origin'), preflight);
    if (headers) res.set(headers);
    if (preflight) return void res.status(204).end();
    next();
  };
}

interface AppParts extends Deps {
  signer: AssertionSigner;
  caches: IdentityCaches;
  ready: () => Promise<void>;
}

/** Everything but data calls: probes, documents, portal sessions, then the proxy to the owner. */
export function createApp(parts: AppParts): Express {
  const { config } = parts;
  const app = createHttpApp({
    logger: parts.logger,
    metrics: parts.metrics,
    parseJson: false,
    trustProxy: config.TRUST_PROXY,
  });
  app.use(cors(corsPolicy(config.CORS_ORIGINS)));
  app.use(probeRouter('gateway', parts.metrics, parts.ready, { serveMetrics: false }));
  app.use(
    documentsRouter({
      x402: x402Settings(config),
      publicBaseUrl: config.PUBLIC_BASE_URL,
      contact: config.CONTACT,
      installCommand: config.AGENT_INSTALL_COMMAND,
    }),
  );
  app.use(
    portalAuth(parts.caches),
    callerAssertion(parts.signer),
    serviceProxy({
      targets: serviceTargets(config),
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      logger: parts.logger,
    }),
  );
  return finishApp(app);
}

function rateLimiter(deps: Deps): RateLimiter {
  const { config } = deps;
  return config.REDIS_URL
    ? new RedisRateLimiter(config.REDIS_URL, config.RATE_LIMIT_PREFIX, deps.logger, deps.metrics.registry)
    : new MemoryRateLimiter();
}

/**
 * The edge: data calls take the lean path of data-edge.ts, everything else the express app.
 * Subscribes to identity's events before it answers, so its caches are never behind.
 * Ready when the bus answers: without it no key or session can be verified. Redis is not part of
 * readiness, since the limiter falls back to per-replica buckets when it is gone.
 */
export async function createGateway(deps: Deps): Promise<Gateway> {
  const { config } = deps;
  const signer = new AssertionSigner(deps.assertionKey);
  const limiter = rateLimiter(deps);
  const caches = identityCaches(deps.bus, config, limiter);
  const subscriptions: Closable[] = await followIdentityEvents(deps.bus, caches, deps.logger).catch(
    async (err: unknown) => {
      await limiter.close();
      throw err;
    },
  );
  const ready = () => deps.bus.ping();
  const app = createApp({ ...deps, signer, caches, ready });
  const edge = dataEdge({
    target: config.DATA_URL,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    keys: caches.keys,
    limiter,
    plans: planPolicies(config.RATE_LIMITS),
    signer,
    x402: x402Settings(config),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    cors: corsPolicy(config.CORS_ORIGINS),
    trustProxy: config.TRUST_PROXY,
    keyFormatValid,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if (isDataPath(q < 0 ? url : url.slice(0, q))) edge(req, res);
    else app(req, res);
  };
  return {
    handler,
    app,
    caches,
    limiter,
    close: async () => {
      await Promise.all(subscriptions.map((s) => s.close()));
      await limiter.close();
    },
  };
}
