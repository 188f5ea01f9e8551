import { assertionKey, setErrorsBase, startServer } from '@meridian/http-kit';
import { createLogger, createMetrics } from '@meridian/observability';
import { isEntrypoint, metricsListener, openBus, runMain, type SharedInfra } from '@meridian/runtime';
import { createGateway } from './app.js';
import { parseConfig } from './config.js';
import { SERVICE } from './deps.js';

/** Composition root of the edge: the only place that reads the environment. */
export async function start(env: Record<string, string | undefined>, shared: SharedInfra = {}) {
  const config = parseConfig(env);
  setErrorsBase(config.ERRORS_BASE);
  const logger = createLogger(SERVICE, { level: config.LOG_LEVEL });
  const metrics = shared.gatewayMetrics ?? createMetrics(SERVICE);
  const closers: Array<() => Promise<void>> = [];
  // Without NATS_URL and alone (no all-in-one bus), no identity answers: keys and sessions get 503.
  const bus = await openBus(SERVICE, config, shared, metrics, logger, closers);
  const gateway = await createGateway({
    config,
    logger,
    metrics,
    assertionKey: assertionKey(config.INTERNAL_AUTH_SECRET),
    bus,
  });
  closers.push(() => gateway.close());
  const server = await startServer(gateway.handler, { port: config.PORT, host: config.HOST, logger });
  server.server.on('checkContinue', gateway.checkContinue);
  closers.push(() => server.close());
  const metricsServer = await startServer(metricsListener(metrics), {
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    logger,
  });
  closers.push(() => metricsServer.close());
  logger.info(
    { url: server.url, metrics_url: `${metricsServer.url}/metrics`, rate_limits: gateway.limiter.kind },
    'gateway listening',
  );
  return {
    url: server.url,
    port: server.port,
    metricsUrl: `${metricsServer.url}/metrics`,
    gateway,
    close: async () => {
      for (const close of closers.reverse()) await close();
    },
  };
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
