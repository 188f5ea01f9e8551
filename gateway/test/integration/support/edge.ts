import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import express from 'express';
import { waitFor } from '@meridian/bus/testing';
import { formatApiKey } from '@meridian/contracts';
import { createHttpApp, finishApp, requireCaller, startServer, type RunningServer } from '@meridian/http-kit';
import { testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { startTestGround } from '@meridian/runtime/testing';
import { linkIn, startServiceProcess, startSmtp } from '@meridian/test-peers';
import { PORTAL_ROUTES } from '../../../src/domain/portal-routes.js';
import { isDataPath } from '../../../src/domain/data-route.js';
import { start as startGateway } from '../../../src/main.js';
import { ROUTE_TABLE, accessOf } from '../../../src/domain/route-table.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const base62 = (n: number) =>
  Array.from({ length: 6 }, (_, i) => BASE62[Math.floor(n / 62 ** (5 - i)) % 62]).join('');
export type Started = Awaited<ReturnType<typeof startGateway>>;
export const DATA = '/v1/data/crypto/spot/reference_price';
export const CHALLENGE = 'Bearer realm="meridian"';
export const INVALID_TOKEN = 'Bearer realm="meridian", error="invalid_token"';
const base62Text = (n: number) =>
  randomBytes(n)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, 'x')
    .slice(0, n);
/** A key of identity's format with a valid checksum that identity never issued. */
export const unissuedKey = () => formatApiKey(base62Text(12), base62Text(32));

/**
 * The most a bucket of `perMinute` tokens, new at `startedAt`, can have granted by now: its
 * capacity and the whole tokens refilled since. Bounds from the wall clock rather than assuming a
 * burst ends before the first refill, which a loaded machine does not promise.
 */
export const grantedSince = (perMinute: number, startedAt: number) =>
  perMinute + Math.floor(((Date.now() - startedAt) * perMinute) / 60_000);

/**
 * A connection that sends the head of `POST path` and the first bytes of a body it never
 * finishes; `answer` resolves with what the gateway said by the time it closed.
 */
export function stalledBody(
  url: string,
  path: string,
  forwardedFor: string,
): { socket: Socket; answer: Promise<string> } {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1', () => {
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n` +
        `X-Forwarded-For: ${forwardedFor}\r\n\r\n{"email":"`,
    );
  });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('error', () => undefined);
  const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  return { socket, answer };
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** The concrete paths every session-gated portal route of the spec and of the route table is called by. */
export function sessionGatedRoutes(): Array<[string, string]> {
  const concrete = (path: string) => path.replaceAll('{id}', randomUUID());
  const spec = PORTAL_ROUTES.map(
    ({ method, path }) => [method.toUpperCase(), concrete(path)] as [string, string],
  );
  const prefixes = ROUTE_TABLE.filter((r) => !isDataPath(r.prefix)).map(
    (r) => ['GET', r.prefix] as [string, string],
  );
  return [...spec, ...prefixes].filter(([, path]) => ['session', 'session_or_key'].includes(accessOf(path)));
}

/** The data service's place: answers who the gateway vouched for (a real assertion check). */
async function dataUpstream(): Promise<RunningServer> {
  const logger = createLogger('upstream', { level: 'silent' });
  const app = createHttpApp({ logger, metrics: createMetrics('upstream', { defaultMetrics: false }) });
  const routes = express.Router();
  routes.get(/^\/v1\/data\/.*/, (req, res) => {
    res.json({
      data: { path: req.path },
      meta: {
        caller: req.caller,
        saw_key: req.header('x-api-key') ?? req.header('authorization') ?? null,
        forwarded_for: req.header('x-forwarded-for') ?? null,
        traceparent: req.header('traceparent') ?? null,
      },
      provenance: { sources: [], method: 'echo' },
    });
  });
  app.use(requireCaller(testAssertionKey), routes);
  return startServer(finishApp(app), { port: 0 });
}

export interface Edge {
  namespace: string;
  /** Two gateway replicas on one Redis, the real identity behind them. */
  a: Started;
  b: Started;
  /** The session of the account the tests make their keys for, as a cookie and as a bearer token. */
  cookie: string;
  sessionToken: string;
  /** The replicas' environment, for a test that starts a gateway of its own. */
  gatewayEnv(): Record<string, string>;
  /** Signs up, confirms through the mailed link and signs in, through replica a. */
  signIn(email: string): Promise<{ cookie: string; token: string }>;
  /** A new key of the session's account (the first account's by default), made through replica b. */
  newKey(sessionCookie?: string): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

type Smtp = Awaited<ReturnType<typeof startSmtp>>;

/** The token of the confirmation link identity mailed to `email`, once the mail arrived. */
async function mailToken(smtp: Smtp, email: string): Promise<string> {
  const mailed = () => smtp.mails.find((m) => m.to === email);
  await waitFor(() => mailed() !== undefined, { timeoutMs: 15_000, what: `the mail to ${email}` });
  return linkIn(mailed()!).searchParams.get('token')!;
}

async function signInThrough(
  gateway: Started,
  smtp: Smtp,
  email: string,
): Promise<{ cookie: string; token: string }> {
  const json = { 'content-type': 'application/json' };
  const password = 'correct horse battery staple';
  const signup = await fetch(`${gateway.url}/auth/signup`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, password }),
  });
  expect(signup.status).toBeLessThan(300);
  const verify = await fetch(`${gateway.url}/auth/verify-email`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ token: await mailToken(smtp, email) }),
  });
  expect(verify.status).toBe(200);
  const login = await fetch(`${gateway.url}/auth/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, password }),
  });
  expect(login.status).toBe(200);
  const body = (await login.json()) as { data: { token: string } };
  return { cookie: login.headers.get('set-cookie')!.split(';')[0]!, token: body.data.token };
}

/**
 * The identity service as its own process (real SMTP peer, a fresh database, a private NATS
 * namespace), a data upstream that echoes who the gateway vouched for, and two gateway replicas
 * sharing Redis; one account signed in.
 */
export async function startEdge(prefix: string): Promise<Edge> {
  // What is started is stopped in reverse, also when a later step of the start fails.
  const stops: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const ground = await startTestGround(prefix, 'silent');
    stops.push(() => ground.close());
    const { namespace } = ground;
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-edge-'));
    stops.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...ground.env, PORT: '0' };
    const upstream = await dataUpstream();
    stops.push(() => upstream.close());
    const smtp = await startSmtp();
    stops.push(() => smtp.close());
    const identity = await startServiceProcess('services/identity/src/main.ts', {
      ...env,
      DATA_DIR: dataDir,
      BCRYPT_COST: '12',
      SMTP_URL: smtp.url,
      // The tests make keys by the dozen for one account; the quota's own tests are identity's.
      KEY_CREATION_LIMIT: '100000',
      KEY_CAPS: 'free=1000',
    });
    stops.push(() => identity.close());
    const gatewayEnv = () => ({
      ...env,
      IDENTITY_URL: identity.url,
      DATA_URL: upstream.url,
      REDIS_URL,
      RATE_LIMIT_PREFIX: `test:${namespace}:`,
      X402_PAY_TO: 'PayToAddress1111',
      X402_FEE_PAYER: 'FeePayerAddress1111',
      METRICS_PORT: '0',
      // The tests play several clients from loopback, each named by X-Forwarded-For.
      TRUST_PROXY: 'loopback',
      // Many keys of one account here; the ceiling's own test starts a gateway pair with a low one.
      ACCOUNT_RATE_MULTIPLE: '100',
    });
    const [a, b] = [await startGateway(gatewayEnv()), await startGateway(gatewayEnv())];
    stops.push(
      () => b.close(),
      () => a.close(),
    );
    const signIn = (email: string) => signInThrough(a, smtp, email);
    const first = await signIn(`u${namespace}@example.com`);
    const newKey = async (sessionCookie = first.cookie) => {
      const res = await fetch(`${b.url}/v1/keys`, { method: 'POST', headers: { cookie: sessionCookie } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { data: { id: string; key: string } }).data;
    };
    return {
      namespace,
      a,
      b,
      cookie: first.cookie,
      sessionToken: first.token,
      gatewayEnv,
      signIn,
      newKey,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
