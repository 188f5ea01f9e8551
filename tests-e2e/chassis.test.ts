import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSystem, type System } from './src/system.js';

describe('the whole system, each service its own process', () => {
  let system: System;

  beforeAll(async () => {
    system = await startSystem('e2e_chassis');
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('answers /health at the gateway and /health, /ready, /metrics at every service', async () => {
    expect((await fetch(`${system.gatewayUrl}/health`)).status).toBe(200);
    for (const url of Object.values(system.serviceUrls)) {
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect((await fetch(`${url}/ready`)).status).toBe(200);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('process_cpu_user_seconds_total');
      expect(metrics).toContain('http_request_duration_seconds');
    }
  });

  it('refuses a request sent straight to a service port without the gateway assertion', async () => {
    const res = await fetch(`${system.serviceUrls.identity}/v1/account`, {
      headers: { 'x-account-id': 'a1' },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error_category: string }).error_category).toBe('unauthorized');
  });

  it('answers an unowned path with a routing 404 problem', async () => {
    const res = await fetch(`${system.gatewayUrl}/v2/unknown`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error_category: string }).error_category).toBe('route_not_found');
  });

  it('keeps answering for the other services when one is killed', async () => {
    const before = await fetch(`${system.gatewayUrl}/v1/requests`);
    expect(before.status).not.toBe(503);
    await system.kill('data');
    const down = await fetch(`${system.gatewayUrl}/v1/catalog`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ error_category: 'service_unavailable', retryable: true });
    for (const path of [
      '/health',
      '/v1/requests',
      '/auth/providers',
      '/v1/credits',
      '/v1/analysis/domains',
    ]) {
      const res = await fetch(`${system.gatewayUrl}${path}`);
      expect({ path, status: res.status }).not.toEqual({ path, status: 503 });
    }
  });
});
