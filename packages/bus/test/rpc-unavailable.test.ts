import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMetrics } from '@meridian/observability';
import pg from 'pg';
import { createNatsBus, type Bus } from '../src/index.js';
import { TEST_NATS_URL, deleteNatsNamespace, uniqueName } from '../src/testing.js';

// A request whose handler fails because its database went away answers a retryable 503, not a 500:
// the gateway passes it on, and the client retries once the database is back (tests-e2e/faults.test.ts).
const postgres = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const namespace = `t${randomUUID().slice(0, 8)}`;

describe('request handlers whose database is unavailable', () => {
  let bus: Bus;

  beforeAll(async () => {
    bus = await createNatsBus({
      url: TEST_NATS_URL,
      name: 'bus-rpc-unavailable-test',
      namespace,
      metrics: createMetrics('t', { defaultMetrics: false }),
    });
  });

  afterAll(async () => {
    await bus?.close();
    await deleteNatsNamespace(TEST_NATS_URL, namespace);
  });

  const ask = async (query: (client: pg.Client) => Promise<unknown>, connectionString: string) => {
    const subject = `rpc.${uniqueName('db')}.read.v1`;
    const served = await bus.serve(subject, 'q', async () => {
      const client = new pg.Client({ connectionString });
      client.on('error', () => {});
      try {
        await client.connect();
        return { ok: true as const, data: await query(client) };
      } finally {
        await client.end().catch(() => undefined);
      }
    });
    try {
      return await bus.request(subject, {});
    } finally {
      await served.close();
    }
  };

  it('answers 503 (retryable) when the server ends the session (an admin shutdown, 57P01)', async () => {
    const reply = await ask((c) => c.query('select pg_terminate_backend(pg_backend_pid())'), postgres);
    expect(reply).toMatchObject({ ok: false, problem: { status: 503, retryable: true, retry_after: 1 } });
  });

  it('answers 503 (retryable) when nothing listens where the database should be', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise((r) => closed.close(r));
    const reply = await ask((c) => c.query('select 1'), `postgres://postgres@127.0.0.1:${port}/postgres`);
    expect(reply).toMatchObject({ ok: false, problem: { status: 503, retryable: true } });
  });

  it('still answers 500 for a failure of its own (a bad query)', async () => {
    const reply = await ask((c) => c.query('select * from no_such_table'), postgres);
    expect(reply).toMatchObject({ ok: false, problem: { status: 500, retryable: false } });
  });
});
