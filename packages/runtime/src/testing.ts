import { randomBytes } from 'node:crypto';
import { TEST_NATS_URL, deleteNatsNamespace } from '@meridian/bus/testing';
import { createTestDatabase } from '@meridian/db/testing';
import { TEST_INTERNAL_AUTH_SECRET } from '@meridian/http-kit/testing';

export { TEST_NATS_URL };

/** What the services of one test (or bench) share: a fresh database and a private NATS namespace. */
export interface TestGround {
  databaseUrl: string;
  namespace: string;
  /**
   * The settings each service of the test reads to share them: DATABASE_URL, NATS_URL,
   * BUS_NAMESPACE, INTERNAL_AUTH_SECRET (the tests' own) and LOG_LEVEL.
   */
  env: Record<string, string>;
  /** Deletes the namespace's streams and drops the database. */
  close(): Promise<void>;
}

/** A fresh database named after `prefix` and a private NATS namespace, for test files that run in parallel. */
export async function startTestGround(prefix: string, logLevel = 'warn'): Promise<TestGround> {
  const database = await createTestDatabase(prefix);
  const namespace = `t${randomBytes(4).toString('hex')}`;
  return {
    databaseUrl: database.url,
    namespace,
    env: {
      DATABASE_URL: database.url,
      NATS_URL: TEST_NATS_URL,
      BUS_NAMESPACE: namespace,
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_AUTH_SECRET,
      LOG_LEVEL: logLevel,
    },
    close: async () => {
      try {
        await deleteNatsNamespace(TEST_NATS_URL, namespace);
      } finally {
        await database.drop();
      }
    },
  };
}

/** A service started by its main.ts's `start`, and the ground it stands on. */
export interface ServiceForTest<S> {
  service: S;
  ground: TestGround;
  /** Stops the service, then the ground if the service was given none (a ground given is the caller's). */
  close(): Promise<void>;
}

type Start<S> = (env: Record<string, string | undefined>) => Promise<S>;

/**
 * A service as its main.ts assembles it, in this process, on a free loopback port: on a ground of
 * its own named after `on` (a string), or on the ground `on` other parts of the test share. `env`
 * adds the service's own settings or overrides any (a key set to undefined is unset).
 */
export async function startServiceForTest<S extends { close(): Promise<void> }>(
  start: Start<S>,
  on: string | TestGround,
  env: Record<string, string | undefined> = {},
): Promise<ServiceForTest<S>> {
  const ground = typeof on === 'string' ? await startTestGround(on) : on;
  const own = typeof on === 'string';
  try {
    const service = await start({ PORT: '0', HOST: '127.0.0.1', ...ground.env, ...env });
    return {
      service,
      ground,
      close: async () => {
        await service.close();
        if (own) await ground.close();
      },
    };
  } catch (error) {
    if (own) await ground.close();
    throw error;
  }
}
