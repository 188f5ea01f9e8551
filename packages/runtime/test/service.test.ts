import { afterAll, describe, expect, it } from '@jest/globals';
import { Router } from 'express';
import { uniqueName } from '@meridian/bus/testing';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import { baseConfigSchema, loadConfig, startService, type RunningService } from '../src/index.js';
import { TEST_NATS_URL } from '../src/testing.js';

describe('a service started by startService', () => {
  const databases: TestDatabase[] = [];
  const services: RunningService[] = [];

  async function startProbeService(): Promise<{ service: RunningService; database: TestDatabase }> {
    const database = await createTestDatabase('runtime_ready');
    databases.push(database);
    const config = loadConfig(baseConfigSchema, {
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: '2',
      NATS_URL: TEST_NATS_URL,
      BUS_NAMESPACE: uniqueName('rt'),
      INTERNAL_AUTH_SECRET: 'r'.repeat(40),
    });
    const service = await startService({
      name: 'probe',
      schema: 'probe',
      config,
      migrations: {},
      routes: () => Router(),
    });
    services.push(service);
    return { service, database };
  }

  afterAll(async () => {
    for (const service of services) await service.close().catch(() => undefined);
    for (const database of databases) await database.drop();
  });

  it('is ready with its database and bus, and answers 503 not_ready once the bus is gone', async () => {
    const { service } = await startProbeService();
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    await service.deps.bus.close();
    const res = await fetch(`${service.url}/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'not_ready', service: 'probe' });
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });

  it('answers 503 not_ready once its database is gone, while /health stays up', async () => {
    const { service, database } = await startProbeService();
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    await database.drop();
    expect((await fetch(`${service.url}/ready`)).status).toBe(503);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });
});
