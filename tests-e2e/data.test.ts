import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createNatsBus, type Bus } from '@meridian/bus';
import { EVENTS, RPC, STREAMS, pricesSchema } from '@meridian/contracts';
import { newEvent } from '@meridian/bus';
import { startSmtp } from '@meridian/test-peers';
import { createKey, signedInAccount } from './src/accounts.js';
import { OpenApiValidator } from './src/openapi-validator.js';
import { startSystem, type System } from './src/system.js';

interface Envelope {
  data: { price: number; venues: { venue: string }[] } & Record<string, unknown>;
  meta: Record<string, unknown>;
  provenance: { method: string; sources: { venue: string }[] };
}

describe('data through the gateway, on the replay of recorded data', () => {
  let system: System;
  let bus: Bus;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  /** An ultra key: these tests are about the data, not the plan gate. */
  let key: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    system = await startSystem('e2e_data', { SMTP_URL: smtp.url });
    bus = await createNatsBus({
      url: system.env.NATS_URL!,
      name: 'e2e-data',
      namespace: system.env.BUS_NAMESPACE,
    });
    const account = await signedInAccount(system, smtp, 'data');
    key = (await createKey(system, account.session)).key;
    const me = (await (
      await fetch(`${system.gatewayUrl}/v1/account`, {
        headers: { authorization: `Bearer ${account.session}` },
      })
    ).json()) as { data: { account_id: string } };
    // As billing announces a plan; identity applies it and tells the gateway.
    await bus.ensureStream(STREAMS.billing);
    await bus.publish(
      newEvent('billing', EVENTS.billingPlanChanged, {
        account_id: me.data.account_id,
        plan: 'ultra',
        changed_at: new Date().toISOString(),
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await bus?.close();
    await system?.stop();
    await smtp?.close();
  });

  async function getJson(path: string, until: (status: number) => boolean = (s) => s === 200) {
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${system.gatewayUrl}${path}`, { headers: { 'x-api-key': key } });
      if (until(res.status) || i === 99) return { status: res.status, body: (await res.json()) as Envelope };
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('unreachable');
  }

  it('answers the reference price from the replay and says it is a replay', async () => {
    const { status, body } = await getJson('/v1/data/crypto/spot/reference_price?entity=BTC-USD');
    expect(status).toBe(200);
    expect(body.data.price).toBeGreaterThan(1000);
    expect(body.meta.replay).toMatchObject({ live: false });
    expect(body.provenance.method).toMatch(/^Replay of recorded data/);
  });

  it('answers a legacy single-metric route exactly as the generic route', async () => {
    // The replay stores a bar each minute: a minute turning between the two reads changes the 24 h
    // window (a run failed on 1453 against 1454 bars), so such a pair is read again, twice at most.
    for (let attempt = 1; ; attempt++) {
      const generic = await getJson('/v1/data/crypto/spot/range_24h?entity=BTC-USD');
      const legacy = await getJson('/v1/range_24h?entity=BTC-USD');
      expect(legacy.status).toBe(200);
      const same =
        isDeepStrictEqual(legacy.body.data, generic.body.data) &&
        isDeepStrictEqual(legacy.body.provenance, generic.body.provenance);
      if (same || attempt === 3) {
        expect(legacy.body.data).toEqual(generic.body.data);
        expect(legacy.body.provenance).toEqual(generic.body.provenance);
        return;
      }
    }
  });

  it('serves an ultra metric once billing announced the plan, through identity and the gateway', async () => {
    const { status, body } = await getJson('/v1/data/crypto/options/chain?entity=BTC');
    expect(status).toBe(200);
    const chain = body.data as unknown as { underlying: string; options: { mark_iv: number }[] };
    expect(chain.underlying).toBe('BTC');
    expect(chain.options.length).toBeGreaterThan(10);
    const basis = await getJson('/v1/data/crypto/futures/basis?entity=BTC-USD');
    expect(basis.status).toBe(200);
  });

  it('carries the rate-limit headers of the (new) plan on every keyed answer', async () => {
    const res = await fetch(`${system.gatewayUrl}/v1/data/crypto/spot/reference_price?entity=BTC-USD`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('1200');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(1200);
    expect(res.headers.get('ratelimit-policy')).toMatch(/q=1200;w=60/);
  });

  it('refuses a free key on a pro metric, asks a keyless caller to pay, and tells planned from unknown', async () => {
    const free = await createKey(system, (await signedInAccount(system, smtp, 'data-free')).session);
    const forbidden = await fetch(`${system.gatewayUrl}/v1/data/crypto/options/chain?entity=BTC`, {
      headers: { 'x-api-key': free.key },
    });
    expect(forbidden.status).toBe(403);
    const problem = (await forbidden.json()) as { error_category: string; detail: string };
    expect(problem.error_category).toBe('tier_forbidden');
    expect(problem.detail).toMatch(/crypto\/options\/chain.*pro/);

    const keyless = await fetch(`${system.gatewayUrl}/v1/data/crypto/spot/reference_price?entity=BTC-USD`);
    expect(keyless.status).toBe(402);
    const challenge = JSON.parse(Buffer.from(keyless.headers.get('payment-required')!, 'base64').toString());
    expect(challenge).toEqual(await keyless.json());
    expect(challenge).toMatchObject({ x402Version: 2, accepts: [{ scheme: 'exact', amount: '10000' }] });

    const planned = await getJson('/v1/data/crypto/spot/spread?entity=BTC-USD', () => true);
    expect(planned.status).toBe(404);
    expect((planned.body as unknown as { error_category: string }).error_category).toBe('not_yet_available');
    const unknown = await getJson('/v1/data/crypto/spot/nonsense', () => true);
    expect(unknown.status).toBe(404);
    expect((unknown.body as unknown as { error_category: string }).error_category).toBe('route_not_found');
  });

  it('stores a batch of a catalogue market sent on rpc.data.ingest.v1 once, and serves it; refuses a market outside the catalogue', async () => {
    // A new venue's BTC-USD book, far in the past: stored and served with source=, never fresh enough
    // to move the reference price of the other tests.
    const row = { ts: '2020-01-02T03:04:00.000Z', open: 7000, high: 7010, low: 6990, close: 7005, volume: 3 };
    const batch = { kind: 'candles', source: 'e2evenue', symbol: 'BTC-USD', interval: '1m', rows: [row] };
    const first = await bus.request(RPC.dataIngest, batch);
    expect(first).toEqual({
      ok: true,
      data: { kind: 'candles', received: 1, inserted: 1, updated: 0, unchanged: 0 },
    });
    const again = await bus.request(RPC.dataIngest, batch);
    expect(again).toMatchObject({ ok: true, data: { inserted: 0, unchanged: 1 } });
    const { status, body } = await getJson(
      '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&source=e2evenue&interval=1m',
    );
    expect(status).toBe(200);
    expect(body.data).toEqual([{ ...row, trade_count: null }]);
    expect(body.provenance.sources).toEqual([{ venue: 'e2evenue', symbol: 'BTC-USD', ts: row.ts }]);

    // BTC-EUR is no market of the catalogue: it could be stored but never read, so it is refused.
    const outside = await bus.request(RPC.dataIngest, { ...batch, symbol: 'BTC-EUR' });
    expect(outside).toMatchObject({
      ok: false,
      problem: { status: 400, error_category: 'validation_failed', errors: [{ path: 'batch.symbol' }] },
    });
    const bad = await bus.request(RPC.dataIngest, { ...batch, symbol: 'nope' });
    expect(bad).toMatchObject({ ok: false, problem: { status: 400, error_category: 'validation_failed' } });
  });

  it('serves the catalog and the demo snapshot without a key', async () => {
    const catalog = await fetch(`${system.gatewayUrl}/v1/catalog`);
    expect(catalog.status).toBe(200);
    const demoKeyless = await fetch(`${system.gatewayUrl}/v1/demo`);
    expect(demoKeyless.status).toBe(200);
    await catalog.arrayBuffer();
    await demoKeyless.arrayBuffer();
  });

  it('serves the price list from billing without a key, with the limit the gateway enforces', async () => {
    const res = await fetch(`${system.gatewayUrl}/v1/billing/prices`);
    expect(res.status).toBe(200);
    const prices = pricesSchema.parse(((await res.json()) as { data: unknown }).data);
    // The options chain answers once the ultra plan has reached the gateway.
    expect((await getJson('/v1/data/crypto/options/chain?entity=BTC')).status).toBe(200);
    const keyed = await fetch(`${system.gatewayUrl}/v1/data/crypto/spot/reference_price?entity=BTC-USD`, {
      headers: { 'x-api-key': key },
    });
    await keyed.arrayBuffer();
    const ultra = prices.plans.find((p) => p.plan === 'ultra')!;
    expect(keyed.headers.get('ratelimit-limit')).toBe(String(ultra.rate_limit_per_minute));
    expect(prices.pay_per_call.prices.map((p) => p.amount_atomic)).toEqual([10_000, 20_000]);
  });

  it('serves the catalog and the demo snapshot', async () => {
    const catalog = await getJson('/v1/catalog');
    expect(catalog.status).toBe(200);
    const demo = await getJson('/v1/demo');
    expect(demo.status).toBe(200);
    expect(demo.body.meta.cache_ttl_s).toBe(60);
    expect((demo.body.data as unknown as { crypto: { spot: unknown[] } }).crypto.spot).toHaveLength(1);
  });

  it('answers every live metric, series and table forms and refusals alike, as /openapi.json publishes', async () => {
    const document = (await (await fetch(`${system.gatewayUrl}/openapi.json`)).json()) as Record<
      string,
      unknown
    >;
    const validator = new OpenApiValidator(document);
    const catalog = (await (await fetch(`${system.gatewayUrl}/v1/catalog`)).json()) as {
      data: {
        categories: Array<{
          category: string;
          products: Array<{
            product: string;
            entities: string[];
            default_entity?: string;
            metrics: Array<{ metric: string; status: string; series: boolean; entities?: string[] }>;
          }>;
        }>;
      };
    };
    const invalid: string[] = [];
    const check = async (path: string, query: string, headers: Record<string, string>, expected?: number) => {
      const res = await fetch(`${system.gatewayUrl}${path}${query}`, { headers });
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
      const body: unknown = await res.json();
      if (expected !== undefined && res.status !== expected)
        invalid.push(`${path}${query}: ${res.status}, not ${expected}`);
      for (const e of validator.errors(path, 'get', res.status, type, body))
        invalid.push(`${path}${query} ${res.status}: ${e}`);
      return res.status;
    };
    const keyed = { 'x-api-key': key };
    await getJson('/v1/data/crypto/spot/ohlcv?entity=BTC-USD');
    for (const { category, products } of catalog.data.categories)
      for (const p of products)
        for (const m of p.metrics) {
          const path = `/v1/data/${category}/${p.product}/${m.metric}`;
          if (m.status !== 'live') continue;
          const entity = m.entities?.[0] ?? p.default_entity ?? p.entities[0];
          const query = entity ? `?entity=${encodeURIComponent(entity)}` : '?';
          await check(path, query, keyed);
          if (m.series) {
            await check(path, `${query}&series=true`, keyed);
            await check(path, `${query}&series=true&format=table&max_response_tokens=1000`, keyed);
          }
        }
    const spot = '/v1/data/crypto/spot/reference_price';
    await check(spot, '?entity=NOT-A-PAIR', keyed, 400);
    await check(spot, '?entity=BTC-USD', { 'x-api-key': 'mk_live_not_a_real_key' }, 401);
    await check(spot, '?entity=BTC-USD', {}, 402);
    const free = await createKey(system, (await signedInAccount(system, smtp, 'data-docs')).session);
    await check('/v1/data/crypto/futures/basis', '?entity=BTC-USD', { 'x-api-key': free.key }, 403);
    expect(invalid).toEqual([]);
  }, 180_000);
});
