import type { RequestListener } from 'node:http';
import type { Express, Router } from 'express';
import type { Kysely } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import {
  createMemoryBus,
  createNatsBus,
  openBusJournal,
  openMemoryBus,
  startOutboxRelay,
  type Bus,
  type ConsumerSpec,
  type OutboxRelayOptions,
  type RpcHandler,
  type StreamSpec,
} from '@meridian/bus';
import type { DatabaseTarget, Migrations } from '@meridian/db';
import {
  assertionKey,
  createHttpApp,
  leanMethods,
  finishApp,
  requireCaller,
  setErrorsBase,
  startServer,
  withLeanRoutes,
  type LeanRoute,
} from '@meridian/http-kit';
import { createLogger, createMetrics, type Logger, type Metrics } from '@meridian/observability';
import type { BaseConfig } from './config.js';
import { probeRouter, type ReadyDetails } from './probes.js';

/** What the all-in-one process shares between its services: one PGlite, one bus. */
export interface SharedInfra {
  pglite?: PGlite;
  bus?: Bus;
  /**
   * The registry the shared in-process bus counts into; the gateway serves it on its /metrics so
   * the bus of the all-in-one process is scraped once, not lost.
   */
  gatewayMetrics?: Metrics;
}

export interface ServiceDeps<DB, C extends BaseConfig = BaseConfig> {
  config: C;
  db: Kysely<DB>;
  bus: Bus;
  logger: Logger;
  metrics: Metrics;
  /** Key that verifies the gateway's caller assertions. */
  assertionKey: Uint8Array;
}

export interface RpcRegistration {
  subject: string;
  handler: RpcHandler<never, unknown>;
}

export interface ServiceDefinition<DB, C extends BaseConfig> {
  name: string;
  /** The Postgres schema this service owns. */
  schema: string;
  config: C;
  migrations: Migrations;
  /** Streams of the events this service publishes, created idempotently at start. */
  streams?: readonly StreamSpec[];
  /** Start the outbox relay (the service publishes events through its outbox table). */
  outbox?: boolean;
  /** The service's routes, mounted behind the caller assertion check. */
  routes(deps: ServiceDeps<DB, C>): Router;
  /** Paths whose routes also read an HTML form; every other body must be JSON (else 415). */
  formPaths?: readonly string[];
  /** Hot GET routes served before express (same assertion check, problems and metrics). */
  leanRoutes?(deps: ServiceDeps<DB, C>): LeanRoute[];
  /** Runs once after migrations, before anything is served (e.g. rows the configuration decides). */
  prepare?(deps: ServiceDeps<DB, C>): Promise<void>;
  rpc?(deps: ServiceDeps<DB, C>): RpcRegistration[];
  consumers?(deps: ServiceDeps<DB, C>): ConsumerSpec<never>[];
  /** More for `/ready` to wait for beyond the database and the bus (e.g. a first load); throws while not ready. */
  ready?(deps: ServiceDeps<DB, C>): Promise<ReadyDetails | void>;
  /** Background work (pollers, schedulers); each returns its stop function. */
  background?(deps: ServiceDeps<DB, C>): Array<() => Promise<void>>;
}

export interface RunningService {
  name: string;
  url: string;
  port: number;
  app: RequestListener;
  deps: ServiceDeps<unknown>;
  close(): Promise<void>;
}

/** The assembled app without listening: the lean routes, then probes, metrics and the service's routes. */
export function buildServiceApp<DB, C extends BaseConfig>(
  def: Pick<ServiceDefinition<DB, C>, 'name' | 'routes' | 'leanRoutes' | 'formPaths' | 'ready'>,
  deps: ServiceDeps<DB, C>,
  infraReady: () => Promise<void>,
): RequestListener {
  const ready = async () => {
    await infraReady();
    return def.ready?.(deps);
  };
  const app = createHttpApp({
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.config.TRUST_PROXY,
    ...(def.formPaths ? { formPaths: def.formPaths } : {}),
  });
  app.use(probeRouter(def.name, deps.metrics, ready));
  app.use(requireCaller(deps.assertionKey), def.routes(deps));
  const routes = def.leanRoutes?.(deps) ?? [];
  const express: Express = finishApp(app, leanMethods(routes));
  if (routes.length === 0) return express;
  return withLeanRoutes(express, {
    routes,
    assertionKey: deps.assertionKey,
    logger: deps.logger,
    metrics: deps.metrics,
  });
}

/**
 * The composition root's work, the same for every service: open the database and the bus, run
 * migrations, ensure streams, start rpc handlers, consumers, the outbox relay and HTTP.
 */
export async function startService<DB, C extends BaseConfig>(
  def: ServiceDefinition<DB, C>,
  shared: SharedInfra = {},
): Promise<RunningService> {
  const { config } = def;
  setErrorsBase(config.ERRORS_BASE);
  const logger = createLogger(def.name, { level: config.LOG_LEVEL });
  const metrics = createMetrics(def.name);
  const closers: Array<() => Promise<void>> = [];
  // @meridian/db (and kysely under it) is loaded here, not at import: the gateway, which has no
  // database, imports this package too and should not hold kysely in its idle memory.
  const { migrateToLatest, openDatabase } = await import('@meridian/db');
  const target = await databaseTarget(config, shared, closers);
  const database = openDatabase<DB>(target, def.schema);
  closers.push(() => database.close());
  // On an embedded database of its own, an in-process bus of its own keeps its streams there (see
  // openBus); a PGlite shared by the caller may hold another bus's journal (the all-in-one's).
  const journalDb = database.kind === 'pglite' && !shared.pglite ? database.db : undefined;
  const bus = await openBus(def.name, config, shared, metrics, logger, closers, journalDb);
  const deps: ServiceDeps<DB, C> = {
    config,
    db: database.db,
    bus,
    logger,
    metrics,
    assertionKey: assertionKey(config.INTERNAL_AUTH_SECRET),
  };
  try {
    await migrateToLatest(database.db, def.schema, def.migrations);
    await def.prepare?.(deps);
    for (const stream of def.streams ?? []) await bus.ensureStream(stream);
    for (const { subject, handler } of def.rpc?.(deps) ?? []) {
      const sub = await bus.serve(subject, def.name, handler);
      closers.push(() => sub.close());
    }
    for (const spec of def.consumers?.(deps) ?? []) {
      const consumer = await bus.consume(spec);
      closers.push(() => consumer.close());
    }
    if (def.outbox) {
      const relay = startOutboxRelay({
        db: database.db,
        schema: def.schema,
        bus,
        logger,
        lockRows: database.kind !== 'pglite',
        hooks: relayTestHooks(config),
      });
      closers.push(() => relay.close());
    }
    for (const stop of def.background?.(deps) ?? []) closers.push(stop);
  } catch (err) {
    await closeAll(closers);
    throw err;
  }
  const app = buildServiceApp(def, deps, async () => {
    await database.db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
    await bus.ping();
  });
  const server = await startServer(app, { port: config.PORT, host: config.HOST, logger });
  closers.push(() => server.close());
  logger.info({ url: server.url }, `${def.name} listening`);
  return {
    name: def.name,
    url: server.url,
    port: server.port,
    app,
    deps: deps as unknown as ServiceDeps<unknown>,
    close: () => closeAll(closers),
  };
}

/** The relay's test seams, from OUTBOX_TEST_RELAY_DELAY_MS and OUTBOX_TEST_MARK_DELAY_MS (0: none). */
function relayTestHooks(config: BaseConfig): OutboxRelayOptions['hooks'] {
  const wait = (ms: number) => (ms > 0 ? () => new Promise<void>((r) => setTimeout(r, ms)) : undefined);
  const beforePublish = wait(config.OUTBOX_TEST_RELAY_DELAY_MS);
  const afterPublish = wait(config.OUTBOX_TEST_MARK_DELAY_MS);
  return { ...(beforePublish ? { beforePublish } : {}), ...(afterPublish ? { afterPublish } : {}) };
}

/** Closes in reverse order of opening: HTTP first, the database last. */
async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  for (const close of closers.reverse()) await close();
  closers.length = 0;
}

async function databaseTarget(
  config: BaseConfig,
  shared: SharedInfra,
  closers: Array<() => Promise<void>>,
): Promise<DatabaseTarget> {
  if (config.DATABASE_URL)
    return { kind: 'pg', url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE };
  if (shared.pglite) return { kind: 'pglite', pglite: shared.pglite };
  const { openPGlite } = await import('@meridian/db');
  const pglite = await openPGlite(config.DATA_DIR);
  closers.push(() => pglite.close());
  return { kind: 'pglite', pglite };
}

/** The bus settings openBus reads: every service's and the gateway's config has them. */
export type BusConfig = Pick<BaseConfig, 'NATS_URL' | 'BUS_NAMESPACE'>;

/** Schema of the embedded database where an in-process bus keeps its streams (openBusJournal). */
export const BUS_JOURNAL_SCHEMA = 'bus';

/**
 * The bus of one process: NATS when NATS_URL is set, else the all-in-one process's shared
 * in-process bus, else one of its own, kept in `journalDb` (the embedded database) when given so
 * that no event is lost at a stop. What it opened is closed by `closers`, not what it shares.
 */
export async function openBus(
  name: string,
  config: BusConfig,
  shared: SharedInfra,
  metrics: Metrics,
  logger: Logger,
  closers: Array<() => Promise<void>>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any service's database
  journalDb?: Kysely<any>,
): Promise<Bus> {
  if (config.NATS_URL) {
    const bus = await createNatsBus({
      url: config.NATS_URL,
      name,
      namespace: config.BUS_NAMESPACE,
      metrics,
      logger,
    });
    closers.push(() => bus.close());
    return bus;
  }
  if (shared.bus) return shared.bus;
  const bus = journalDb
    ? await openMemoryBus({
        name,
        metrics,
        logger,
        journal: await openBusJournal(journalDb, BUS_JOURNAL_SCHEMA),
      })
    : createMemoryBus({ name, metrics, logger });
  closers.push(() => bus.close());
  return bus;
}
