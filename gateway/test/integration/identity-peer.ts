import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { catalogFor, higherPlan } from '@meridian/contracts';
import { waitFor } from '@meridian/bus/testing';
import { createHttpApp, finishApp, requireCaller, startServer, type RunningServer } from '@meridian/http-kit';
import { testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { startTestGround } from '@meridian/runtime/testing';
import { linkIn, startServiceProcess, startSmtp, type ServiceProcess } from '@meridian/test-peers';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PASSWORD = 'correct horse battery staple';
const JSON_BODY = { 'content-type': 'application/json' };

/**
 * What a gateway test needs behind the gateway: the real identity service (a process, mailing
 * through a local SMTP peer) and, in the data service's place, a server that checks the gateway's
 * assertion and echoes who it vouched for. On a fresh database and a private NATS namespace.
 */
export interface IdentityPeer {
  namespace: string;
  identity: ServiceProcess;
  upstream: RunningServer;
  /** The settings every gateway of the test starts with. */
  env(): Record<string, string>;
  /** Signs up, confirms and signs in through `gatewayUrl`; answers the session cookie. */
  signIn(gatewayUrl: string, email: string): Promise<string>;
  /** A new API key of the signed-in account. */
  newKey(gatewayUrl: string, cookie: string): Promise<string>;
  /** The token of the latest link identity mailed to `email` whose path includes `path`. */
  mailedToken(email: string, path: string): Promise<string>;
  close(): Promise<void>;
}

async function echoUpstream(): Promise<RunningServer> {
  const logger = createLogger('upstream', { level: 'silent' });
  const app = createHttpApp({ logger, metrics: createMetrics('upstream', { defaultMetrics: false }) });
  const routes = express.Router();
  // The catalogue as the data service serves it under replay, which the MCP edge reads its
  // enumerations from.
  routes.get('/v1/catalog', (_req, res) => {
    const { products } = catalogFor('replay');
    const categories = [...new Set(products.map((p) => p.category))].map((category) => ({
      category,
      products: products
        .filter((p) => p.category === category)
        .map((p) => ({
          ...p,
          metrics: p.metrics.map((m) => ({ ...m, min_tier: higherPlan(p.min_tier, m.min_tier) })),
        })),
    }));
    res.json({
      data: { categories },
      meta: { as_of: new Date().toISOString(), venues: [], staleness_ms: 0, confidence: 1 },
      provenance: { sources: [], method: 'catalogFor(replay)' },
    });
  });
  routes.get(/^\/v1\/data\/.*/, (req, res) => {
    res.json({
      data: { symbol: 'BTC-USD', price: '1', venues: [], path: req.path },
      meta: { caller: req.caller, as_of: new Date().toISOString() },
      provenance: { sources: [], method: 'echo' },
    });
  });
  app.use(requireCaller(testAssertionKey), routes);
  return startServer(finishApp(app), { port: 0 });
}

export async function startIdentityPeer(prefix: string): Promise<IdentityPeer> {
  const ground = await startTestGround(prefix, 'silent');
  const { namespace } = ground;
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const upstream = await echoUpstream();
  const smtp = await startSmtp();
  const common = ground.env;
  const identity = await startServiceProcess('services/identity/src/main.ts', {
    ...common,
    PORT: '0',
    DATA_DIR: dataDir,
    SMTP_URL: smtp.url,
  });
  const mailedToken = async (email: string, path: string) => {
    const mails = () => smtp.mails.filter((m) => m.to === email && linkIn(m).pathname.includes(path));
    await waitFor(() => mails().length > 0, { timeoutMs: 15_000, what: `a mail to ${email}` });
    return linkIn(mails().at(-1)!).searchParams.get('token')!;
  };
  const post = (url: string, body: object, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...JSON_BODY, ...headers }, body: JSON.stringify(body) });
  return {
    namespace,
    identity,
    upstream,
    env: () => ({
      ...common,
      PORT: '0',
      METRICS_PORT: '0',
      IDENTITY_URL: identity.url,
      DATA_URL: upstream.url,
      X402_PAY_TO: 'PayToAddress1111',
      X402_FEE_PAYER: 'FeePayerAddress1111',
    }),
    mailedToken,
    signIn: async (gatewayUrl, email) => {
      await post(`${gatewayUrl}/auth/signup`, { email, password: PASSWORD });
      const token = await mailedToken(email, 'verify');
      const verified = await post(`${gatewayUrl}/auth/verify-email`, { token });
      if (verified.status !== 200) throw new Error(`verify-email answered ${verified.status}`);
      const login = await post(`${gatewayUrl}/auth/login`, { email, password: PASSWORD });
      if (login.status !== 200) throw new Error(`login answered ${login.status}`);
      return login.headers.get('set-cookie')!.split(';')[0]!;
    },
    newKey: async (gatewayUrl, cookie) => {
      const res = await fetch(`${gatewayUrl}/v1/keys`, { method: 'POST', headers: { cookie } });
      if (res.status !== 201) throw new Error(`POST /v1/keys answered ${res.status}`);
      return ((await res.json()) as { data: { key: string } }).data.key;
    },
    close: async () => {
      await identity.close();
      await smtp.close();
      await upstream.close();
      await ground.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
