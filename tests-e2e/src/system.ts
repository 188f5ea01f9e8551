import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import { startServiceProcess, type ServiceProcess } from '@meridian/test-peers';

export const SERVICE_NAMES = ['identity', 'billing', 'analysis', 'data', 'x402', 'requests'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface System {
  gatewayUrl: string;
  serviceUrls: Record<ServiceName, string>;
  env: Record<string, string>;
  /** Kills one service process (SIGKILL: no drain) to see how the rest behave. */
  kill(name: ServiceName | 'gateway'): Promise<void>;
  /**
   * Starts a service killed (or still running: it is stopped first, SIGKILL) again on its port, so
   * the gateway finds it where it was; `env` comes on top of the system's (e.g. a test seam unset).
   */
  restart(name: ServiceName, env?: Record<string, string>): Promise<void>;
  /** Another gateway replica on the same services, bus and database (stopped with the rest); its URL. */
  addGateway(): Promise<string>;
  stop(): Promise<void>;
}

export interface SystemOptions {
  /** The server to make the system's database on (its `postgres` database's URL); default the machine's. */
  postgresUrl?: string;
}

/**
 * Every service and the gateway as its own process, on a fresh database of the machine's
 * Postgres and a private namespace of the machine's NATS (`NATS_URL` in `extraEnv`: another server).
 */
export async function startSystem(
  prefix: string,
  extraEnv: Record<string, string> = {},
  options: SystemOptions = {},
): Promise<System> {
  const database: TestDatabase = await createTestDatabase(prefix, options.postgresUrl);
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '3',
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    BUS_NAMESPACE: `e2e${randomBytes(4).toString('hex')}`,
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    // Every line a service writes is captured and scanned for the secrets the tests used.
    LOG_LEVEL: 'debug',
    // Without a facilitator the challenge's fee payer is pinned, so a keyless call is still
    // challenged (402); the x402 tests give their local facilitator instead.
    ...(extraEnv.FACILITATOR_URL ? {} : { X402_FEE_PAYER: 'FeePayer1111111111111111111111111111111111' }),
    ...extraEnv,
  };
  const processes = new Map<ServiceName | 'gateway' | 'portal', ServiceProcess>();
  const abort = async (err: unknown): Promise<never> => {
    await Promise.all([...processes.values()].map((p) => p.kill()));
    await database.drop();
    throw err;
  };
  // Every start settles before a failure is reported, so none is left running behind it.
  const started = await Promise.allSettled(
    SERVICE_NAMES.map(async (name) => {
      processes.set(name, await startServiceProcess(`services/${name}/src/main.ts`, env));
    }),
  );
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) return abort(failed.reason);
  const serviceUrls = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, processes.get(name)!.url]),
  ) as Record<ServiceName, string>;
  const urls = Object.fromEntries(SERVICE_NAMES.map((n) => [`${n.toUpperCase()}_URL`, serviceUrls[n]]));
  try {
    // The web portal's edge: the pages the gateway serves at `/` (no data, no assertion).
    const portal = await startServiceProcess('portal/src/main.ts', { ...env, LOG_LEVEL: 'info' });
    processes.set('portal', portal);
    urls.PORTAL_URL = portal.url;
    processes.set(
      'gateway',
      await startServiceProcess('gateway/src/main.ts', { ...env, ...urls, METRICS_PORT: '0' }),
    );
  } catch (err) {
    return abort(err);
  }
  const replicas: ServiceProcess[] = [];
  return {
    gatewayUrl: processes.get('gateway')!.url,
    serviceUrls,
    env,
    kill: async (name) => processes.get(name)?.kill(),
    restart: async (name, more = {}) => {
      await processes.get(name)?.kill();
      const port = new URL(serviceUrls[name]).port;
      processes.set(
        name,
        await startServiceProcess(`services/${name}/src/main.ts`, { ...env, ...more, PORT: port }),
      );
    },
    addGateway: async () => {
      const replica = await startServiceProcess('gateway/src/main.ts', {
        ...env,
        ...urls,
        METRICS_PORT: '0',
      });
      replicas.push(replica);
      return replica.url;
    },
    stop: async () => {
      await Promise.all([...processes.values(), ...replicas].map((p) => p.close()));
      await database.drop();
    },
  };
}
