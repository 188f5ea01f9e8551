import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import { TEST_NATS_URL } from '@meridian/runtime/testing';
import { startServiceProcess, type ServiceProcess } from '@meridian/test-peers';

export const SERVICE_NAMES = ['identity', 'billing', 'analysis', 'data', 'x402', 'requests'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface System {
  gatewayUrl: string;
  /** The first replica of each service. */
  serviceUrls: Record<ServiceName, string>;
  /** Every replica of each service (`replicas` of startSystem), the first one first. */
  replicas: Record<ServiceName, ServiceProcess[]>;
  env: Record<string, string>;
  /** Kills one service process, its first replica (SIGKILL: no drain), to see how the rest behave. */
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
  /**
   * Replicas of each named service (default one): every one its own process on the same database
   * and bus, and the gateways are given all of their URLs (`DATA_URL=a,b`: gateway/README.md,
   * Replicas of a service).
   */
  replicas?: Partial<Record<ServiceName, number>>;
  /** The server to make the system's database on (its `postgres` database's URL); default the machine's. */
  postgresUrl?: string;
}

/**
 * The portal bundles its pages at start, beside six services starting too: on a loaded machine that
 * takes longer than a service's start, so it is given longer.
 */
const PORTAL_START = { readyTimeoutMs: 180_000 };

/** What every process of the system is given: its database, its bus namespace, its shared secret. */
function systemEnv(database: TestDatabase, extraEnv: Record<string, string>): Record<string, string> {
  return {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '3',
    NATS_URL: TEST_NATS_URL,
    BUS_NAMESPACE: `e2e${randomBytes(4).toString('hex')}`,
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    // Every line a service writes is captured and scanned for the secrets the tests used.
    LOG_LEVEL: 'debug',
    // A deployment that takes deposits: without an address billing refuses the top-up answers.
    DEPOSIT_ADDRESS: 'Dep1t5WaLLet1111111111111111111111111111111',
    // Without a facilitator the challenge's fee payer is pinned, so a keyless call is still
    // challenged (402); the x402 tests give their local facilitator instead.
    ...(extraEnv.FACILITATOR_URL ? {} : { X402_FEE_PAYER: 'FeePayer1111111111111111111111111111111111' }),
    ...extraEnv,
  };
}

const noReplicas = () =>
  Object.fromEntries(SERVICE_NAMES.map((n) => [n, [] as ServiceProcess[]])) as Record<
    ServiceName,
    ServiceProcess[]
  >;

/** The gateway's `<SERVICE>_URL` of each service: every replica's URL, comma-separated. */
function replicaUrls(replicas: Record<ServiceName, ServiceProcess[]>): Record<string, string> {
  return Object.fromEntries(
    SERVICE_NAMES.map((n) => [`${n.toUpperCase()}_URL`, replicas[n].map((r) => r.url).join(',')]),
  );
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
  const env = systemEnv(database, extraEnv);
  const replicas = noReplicas();
  const edges = new Map<'gateway' | 'portal', ServiceProcess>();
  const gateways: ServiceProcess[] = [];
  const all = () => [...Object.values(replicas).flat(), ...edges.values(), ...gateways];
  const abort = async (err: unknown): Promise<never> => {
    await Promise.all(all().map((p) => p.kill()));
    await database.drop();
    throw err;
  };
  // Every start settles before a failure is reported, so none is left running behind it. The
  // first replica of each service starts alone (it migrates its schema), its others right after.
  // The web portal's edge (the pages the gateway serves at `/`: no data, no assertion) meanwhile.
  const starting: Promise<void>[] = [
    startServiceProcess('portal/src/main.ts', { ...env, LOG_LEVEL: 'info' }, PORTAL_START).then((p) => {
      edges.set('portal', p);
    }),
  ];
  const started = await Promise.allSettled([
    ...starting,
    ...SERVICE_NAMES.map(async (name) => {
      replicas[name].push(await startServiceProcess(`services/${name}/src/main.ts`, env));
      const more = Array.from({ length: (options.replicas?.[name] ?? 1) - 1 }, async () => {
        replicas[name].push(await startServiceProcess(`services/${name}/src/main.ts`, env));
      });
      const failed = (await Promise.allSettled(more)).find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    }),
  ]);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) return abort(failed.reason);
  const serviceUrls = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, replicas[name][0]!.url]),
  ) as Record<ServiceName, string>;
  const urls = { ...replicaUrls(replicas), PORTAL_URL: edges.get('portal')!.url };
  try {
    edges.set(
      'gateway',
      await startServiceProcess('gateway/src/main.ts', { ...env, ...urls, METRICS_PORT: '0' }),
    );
  } catch (err) {
    return abort(err);
  }
  return {
    gatewayUrl: edges.get('gateway')!.url,
    serviceUrls,
    replicas,
    env,
    kill: async (name) => (name === 'gateway' ? edges.get(name) : replicas[name][0])?.kill(),
    restart: async (name, more = {}) => {
      await replicas[name][0]?.kill();
      const port = new URL(serviceUrls[name]).port;
      replicas[name][0] = await startServiceProcess(`services/${name}/src/main.ts`, {
        ...env,
        ...more,
        PORT: port,
      });
    },
    addGateway: async () => {
      const gateway = await startServiceProcess('gateway/src/main.ts', {
        ...env,
        ...urls,
        METRICS_PORT: '0',
      });
      gateways.push(gateway);
      return gateway.url;
    },
    stop: async () => {
      await Promise.all(all().map((p) => p.close()));
      await database.drop();
    },
  };
}

/**
 * Waits until the data service serves the replay of recorded data it loads at start: until then
 * a keyless read is no x402 challenge. Keyless, so that no key's budget is spent on the wait.
 */
export async function replayLoaded(system: System, path: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${system.gatewayUrl}${path}`);
    await res.arrayBuffer();
    if (res.status === 402) return;
    if (Date.now() > deadline)
      throw new Error(`${path} answered ${res.status}, not 402, for ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
