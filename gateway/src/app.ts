import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { createHttpApp, finishApp } from '@meridian/http-kit';
import { probeRouter } from '@meridian/runtime';
import type { Closable } from '@meridian/bus';
import { USDC_MINTS, type Plan, catalogFor, dataAnswersChangedSchema, NOTICES } from '@meridian/contracts';
import { followIdentityEvents, identityCaches, type IdentityCaches } from './adapters/identity.js';
import { MemoryRateLimiter, type RateLimiter } from './adapters/rate-limiter.js';
import { RedisRateLimiter } from './adapters/redis-rate-limiter.js';
import { MemorySessionEpochs, RedisSessionEpochs, type SessionEpochs } from './adapters/session-epochs.js';
import { x402Client } from './adapters/x402.js';
import type { Config } from './config.js';
import type { Deps, EdgeDeps } from './deps.js';
import { trustedProxies } from './domain/client-address.js';
import { corsPolicy, type CorsPolicy } from './domain/cors.js';
import type { SiteOrigins } from './domain/cross-site.js';
import { isDataPath } from './domain/data-route.js';
import { keyFormatValid } from './domain/key-format.js';
import type { X402Settings } from './domain/payment-required.js';
import type { ServiceName } from './domain/route-table.js';
import { accountPolicies, planPolicies, retiredKeysBucket } from './domain/token-bucket.js';
import { AssertionSigner, callerAssertion } from './edge/assertion.js';
import { boundedBodies, checkContinue, closeUnboundedBodies } from './edge/bodies.js';
import { EdgeFront } from './edge/call.js';
import { sameSiteChanges } from './edge/cross-site.js';
import { inFlightPerClient, openedCalls } from './edge/front.js';
import { InFlightGate } from './edge/in-flight.js';
import { retireRevokedKeys } from './edge/key-revocation.js';
import { dataEdge } from './edge/data-calls.js';
import { documentsRouter } from './edge/documents.js';
import { portalAuth } from './edge/portal-auth.js';
import { serviceProxy } from './edge/proxy.js';
import { sessionsEndedOnReset } from './edge/session-epochs.js';
import { replicaUrls, Replicas } from './domain/replicas.js';

export type { Deps } from './deps.js';

export interface Gateway {
  handler: RequestListener;
  /** The public server's `checkContinue` listener (edge/bodies.ts). */
  checkContinue: RequestListener;
  app: Express;
  caches: IdentityCaches;
  limiter: RateLimiter;
  close(): Promise<void>;
}

/** Each service's replicas: its `*_URL` setting, one URL or several. */
function serviceTargets(config: Config): Record<ServiceName, URL[]> {
  return {
    identity: replicaUrls(config.IDENTITY_URL),
    billing: replicaUrls(config.BILLING_URL),
    analysis: replicaUrls(config.ANALYSIS_URL),
    data: replicaUrls(config.DATA_URL),
    x402: replicaUrls(config.X402_URL),
    requests: replicaUrls(config.REQUESTS_URL),
    mcp: replicaUrls(config.MCP_URL),
    portal: replicaUrls(config.PORTAL_URL),
  };
}

/** Where a cookie-authenticated change may come from: PUBLIC_BASE_URL and the CORS origins that may send cookies. */
function siteOrigins(config: Config, policy: CorsPolicy): SiteOrigins {
  return {
    allowed: policy.origins === '*' ? new Set() : policy.origins,
    own: config.PUBLIC_BASE_URL ? new URL(config.PUBLIC_BASE_URL).origin : undefined,
  };
}

function x402Settings(config: Config): X402Settings {
  return {
    payTo: config.X402_PAY_TO,
    network: config.X402_NETWORK,
    asset: USDC_MINTS[config.X402_NETWORK],
    ...(config.X402_FEE_PAYER ? { feePayer: config.X402_FEE_PAYER } : {}),
  };
}

/**
 * The express path: the front of edge/call.ts, probes, documents, data calls (the steps of the lean
 * path, which the handler sends them to first), portal sessions, then the proxy to the owner.
 */
export function createApp(deps: EdgeDeps, dataCalls: RequestHandler): Express {
  const { config } = deps;
  const app = createHttpApp({
    logger: deps.logger,
    metrics: deps.metrics,
    parseJson: false,
  });
  app.set('trust proxy', trustedProxies(config.TRUST_PROXY));
  app.use(openedCalls(deps.front));
  app.use(probeRouter('gateway', deps.metrics, deps.ready, { serveMetrics: false }));
  app.use(inFlightPerClient(deps.front));
  app.use(closeUnboundedBodies(deps.bodies));
  app.use(
    documentsRouter({
      x402: x402Settings(config),
      publicBaseUrl: config.PUBLIC_BASE_URL,
      catalog: catalogFor(config.INGEST_MODE),
      contact: config.CONTACT,
      installCommand: config.AGENT_INSTALL_COMMAND,
    }),
  );
  app.use(dataCalls);
  app.use(
    portalAuth(deps.caches),
    sameSiteChanges(siteOrigins(config, corsPolicy(config.CORS_ORIGINS))),
    boundedBodies(deps.bodies),
    retireRevokedKeys(deps.limiter, deps.plans),
    callerAssertion(deps.signer),
    sessionsEndedOnReset(deps.epochs, deps.logger),
    serviceProxy({
      targets: serviceTargets(config),
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      restMs: config.REPLICA_REST_MS,
      logger: deps.logger,
    }),
  );
  return finishApp(app);
}

/** The data calls' steps (data-api-interface 4.1): the lean listener, and the express app's route. */
function createDataEdge(deps: EdgeDeps) {
  const { config } = deps;
  return dataEdge({
    catalog: catalogFor(config.INGEST_MODE),
    replicas: new Replicas(replicaUrls(config.DATA_URL), config.REPLICA_REST_MS),
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    keys: deps.caches.keys,
    sessions: deps.caches.sessions,
    limiter: deps.limiter,
    plans: deps.plans,
    accountPlans: deps.accountPlans,
    signer: deps.signer,
    x402: x402Settings(config),
    payments: x402Client(deps.bus, {
      network: config.X402_NETWORK,
      timeoutMs: config.X402_TIMEOUT_MS,
      ...(config.X402_FEE_PAYER ? { feePayer: config.X402_FEE_PAYER } : {}),
    }),
    ...(config.PUBLIC_BASE_URL !== undefined ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
    front: deps.front,
    keyFormatValid,
    bodies: deps.bodies,
    logger: deps.logger,
    metrics: deps.metrics,
    keptAnswers: {
      ttlMs: config.DATA_EDGE_CACHE_MS,
      maxBytes: config.DATA_EDGE_CACHE_MB * 1024 * 1024,
      maxBodyBytes: KEPT_BODY_MAX_BYTES,
    },
  });
}

/** The largest data answer kept at the edge: a series page is about 80 KB. */
const KEPT_BODY_MAX_BYTES = 512 * 1024;

function rateLimiter(deps: Deps): RateLimiter {
  const { config } = deps;
  return config.REDIS_URL
    ? new RedisRateLimiter(config.REDIS_URL, config.RATE_LIMIT_PREFIX, deps.logger, deps.metrics.registry)
    : new MemoryRateLimiter();
}

/**
 * Where the sessions epochs live: the Redis of the rate limits when configured (every replica
 * reads the same), else this replica's memory. Kept past any session's stay in the cache.
 */
function sessionEpochs(config: Config): SessionEpochs {
  const keepMs = Math.max(2 * config.SESSION_CACHE_TTL_MS, 60_000);
  return config.REDIS_URL
    ? new RedisSessionEpochs(config.REDIS_URL, config.RATE_LIMIT_PREFIX, keepMs)
    : new MemorySessionEpochs(keepMs);
}

/**
 * The edge: data calls take the lean path of edge/data-calls.ts, everything else the express app.
 * Subscribes to identity's events before it answers, so its caches are never behind.
 * Ready when the bus answers: without it no key or session can be verified. Redis is not part of
 * readiness, since the limiter falls back to per-replica buckets when it is gone.
 */
export async function createGateway(deps: Deps): Promise<Gateway> {
  const { config } = deps;
  const limiter = rateLimiter(deps);
  const epochs = sessionEpochs(config);
  const caches = identityCaches(deps.bus, config, limiter, epochs);
  const plans = planPolicies(config.RATE_LIMITS);
  // Every replica keeps a revoked key's spent budget for its account (the carrying one did already).
  const keyRevoked = (key: { plan: Plan } | undefined, revoked: { key_id: string; account_id: string }) => {
    if (key) void limiter.retire(revoked.key_id, retiredKeysBucket(revoked.account_id), plans[key.plan]);
  };
  const subscriptions: Closable[] = await followIdentityEvents(
    deps.bus,
    caches,
    deps.logger,
    keyRevoked,
  ).catch(async (err: unknown) => {
    await limiter.close();
    await epochs.close();
    throw err;
  });
  const inFlight = new InFlightGate(config.MAX_IN_FLIGHT_PER_CLIENT);
  const edgeDeps: EdgeDeps = {
    ...deps,
    front: new EdgeFront({
      cors: corsPolicy(config.CORS_ORIGINS),
      trustProxy: config.TRUST_PROXY,
      clientAddressKey: deps.assertionKey,
      inFlight,
    }),
    signer: new AssertionSigner(deps.assertionKey),
    caches,
    limiter,
    epochs,
    plans,
    accountPlans: accountPolicies(config.RATE_LIMITS, config.ACCOUNT_RATE_MULTIPLE),
    inFlight,
    bodies: { maxBytes: config.BODY_LIMIT_BYTES, timeoutMs: config.BODY_TIMEOUT_MS },
    ready: () => deps.bus.ping(),
  };
  const data = createDataEdge(edgeDeps);
  // A data replica's notice of stored rows: answers kept of those products are not served again.
  subscriptions.push(
    await deps.bus.subscribe(NOTICES.dataAnswersChanged, (event) => {
      const notice = dataAnswersChangedSchema.safeParse(event.data).data;
      if (notice) data.forgetKept(notice.products);
    }),
  );
  const app = createApp(edgeDeps, data.route);
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if (isDataPath(q < 0 ? url : url.slice(0, q))) data.listener(req, res);
    else app(req, res);
  };
  return {
    handler,
    checkContinue: checkContinue(edgeDeps.bodies, handler),
    app,
    caches,
    limiter,
    close: async () => {
      await Promise.all(subscriptions.map((s) => s.close()));
      await limiter.close();
      await epochs.close();
      await data.close();
    },
  };
}
