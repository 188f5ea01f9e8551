import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { createMemoryBus, type Bus } from '@meridian/bus';
import { RPC, type SessionVerifyReply } from '@meridian/contracts';
import { problem, type HttpProblem } from '@meridian/http-kit';
import { identityCaches, type IdentityCaches } from '../../src/adapters/identity.js';
import { portalAuth } from '../../src/edge/portal-auth.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limiter.js';

const ADDRESS = '203.0.113.9';
const SETTINGS = {
  KEY_CACHE_TTL_MS: 60_000,
  KEY_CACHE_MAX: 100,
  KEY_NEGATIVE_TTL_MS: 15_000,
  KEY_NEGATIVE_MAX: 100,
  SESSION_CACHE_TTL_MS: 30_000,
  SESSION_NEGATIVE_TTL_MS: 15_000,
  IDENTITY_MAX_IN_FLIGHT: 256,
  // One try per address: one lookup holds it, one waits, the next is answered busy at once.
  FAILED_VERIFICATIONS_PER_MIN: 1,
};

/** The portal check in front of a handler that says who it was given. */
function portal(caches: IdentityCaches) {
  const app = express();
  app.set('trust proxy', 'loopback');
  app.use(portalAuth(caches));
  app.use((_req: Request, res: Response) => res.json({ caller: res.locals.caller ?? null }));
  app.use((err: HttpProblem, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.body.status).set(err.headers).json(err.body);
  });
  return app;
}

describe('portal session check on anonymous routes', () => {
  let bus: Bus;
  let answerSlow: () => void;
  /** When identity says the operator's session last passed its second factor. */
  let secondFactorAt: string | null = '2026-12-02T01:00:00.000Z';

  beforeEach(async () => {
    bus = createMemoryBus({ name: 'portal-auth-test' });
    const slow = new Promise<void>((resolve) => (answerSlow = resolve));
    // Identity: a `slow-` token is answered 401 when the test says, a `down-` one 503, others 401.
    await bus.serve<{ token: string }, SessionVerifyReply>(
      RPC.identitySessionVerify,
      'identity',
      async ({ token }) => {
        if (token.startsWith('down-'))
          return { ok: false, problem: problem('service_unavailable', 'db down') };
        if (token.startsWith('slow-')) await slow;
        if (token.startsWith('op-'))
          return {
            ok: true,
            data: {
              account_id: 'a-op',
              session_id: token,
              plan: 'free',
              role: 'operator',
              totp_active: true,
              second_factor_at: secondFactorAt,
              sessions_epoch: 0,
            },
          };
        return { ok: false, problem: problem('unauthorized', 'unknown session') };
      },
    );
  });

  afterEach(async () => {
    answerSlow();
    await bus.close();
  });

  const withCookie = (app: express.Express, path: string, token: string) =>
    request(app).get(path).set('cookie', `meridian_session=${token}`).set('x-forwarded-for', ADDRESS);

  it('serves a stale cookie as anonymous when its lookup is answered busy (503)', async () => {
    const caches = identityCaches(bus, SETTINGS, new MemoryRateLimiter());
    const app = portal(caches);
    // The address's one try is held by a lookup identity has not answered, and one waits for it.
    const holding = caches.sessions.verify('slow-1', () => ADDRESS);
    const waiting = caches.sessions.verify('slow-2', () => ADDRESS);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await withCookie(app, '/v1/account', 'slow-3')).status).toBe(503);
    const signIn = await withCookie(app, '/auth/providers', 'slow-4');
    expect(signIn.status).toBe(200);
    expect(signIn.body).toEqual({ caller: null });
    answerSlow();
    expect(await holding).toMatchObject({ problem: { status: 401 } });
    expect(await waiting).toMatchObject({ problem: { status: 429 } });
  });

  it('serves a cookie as anonymous when identity cannot answer, and says so on a session route', async () => {
    const app = portal(identityCaches(bus, SETTINGS, new MemoryRateLimiter()));
    expect((await withCookie(app, '/auth/providers', 'down-1')).status).toBe(200);
    expect((await withCookie(app, '/v1/account', 'down-1')).status).toBe(503);
  });

  it("carries a session's operator role and TOTP state to the caller the services are told of", async () => {
    const app = portal(identityCaches(bus, SETTINGS, new MemoryRateLimiter()));
    const res = await withCookie(app, '/v1/operator/reviews', 'op-1');
    expect(res.status).toBe(200);
    expect(res.body.caller).toEqual({
      account_id: 'a-op',
      plan: 'free',
      auth: 'session',
      key_id: null,
      session_id: 'op-1',
      role: 'operator',
      totp_active: true,
      second_factor_at: '2026-12-02T01:00:00.000Z',
    });
  });

  it('verifies a session again after its step-up, so the new second_factor_at reaches the services at once', async () => {
    secondFactorAt = null;
    const app = portal(identityCaches(bus, SETTINGS, new MemoryRateLimiter()));
    const before = await withCookie(app, '/v1/operator/reviews', 'op-2');
    expect(before.body.caller.second_factor_at).toBeNull();
    secondFactorAt = '2026-12-02T01:30:00.000Z';
    // Cached: still what identity said first.
    expect((await withCookie(app, '/v1/operator/reviews', 'op-2')).body.caller.second_factor_at).toBeNull();
    const stepUp = await request(app)
      .post('/v1/account/step-up')
      .set('cookie', 'meridian_session=op-2')
      .set('x-forwarded-for', ADDRESS);
    expect(stepUp.status).toBe(200);
    const after = await withCookie(app, '/v1/operator/reviews', 'op-2');
    expect(after.body.caller.second_factor_at).toBe('2026-12-02T01:30:00.000Z');
  });
});
