import { startServer } from '@meridian/http-kit';
import { createLogger, createMetrics } from '@meridian/observability';
import { isEntrypoint, runMain } from '@meridian/runtime';
import { createApp } from './app.js';
import { bundle, readBuilt, scriptSize } from './bundle.js';
import { parseConfig } from './config.js';
import { SERVICE } from './deps.js';

/** Composition root of the portal edge: the only reader of the environment. */
export async function start(env: Record<string, string | undefined>) {
  const config = parseConfig(env);
  const logger = createLogger(SERVICE, { level: config.LOG_LEVEL });
  const metrics = createMetrics(SERVICE);
  const assets = config.PORTAL_DIST ? await readBuilt(config.PORTAL_DIST) : await bundle();
  const size = scriptSize(assets);
  const server = await startServer(createApp({ config, logger, metrics, assets }), {
    port: config.PORT,
    host: config.HOST,
    logger,
  });
  logger.info({ url: server.url, script_bytes: size.raw, script_gzip_bytes: size.gzip }, 'portal listening');
  return { url: server.url, port: server.port, close: () => server.close() };
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
