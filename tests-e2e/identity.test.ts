import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { linkIn, startSmtp } from '@meridian/test-peers';
import { createKey, mailTo, postJson, pressConfirmButton, signedInAccount } from './src/accounts.js';
import { eventuallyAnswered } from './src/eventually.js';
import { clientAddresses, postFromClient } from './src/forwarded-clients.js';
import { totpCode } from './src/totp.js';
import { startSystem, type System } from './src/system.js';

/** Identity through the gateway, every service its own process; sessions and keys checked at the edge. */
describe('identity through the gateway', () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    system = await startSystem('e2e_identity', {
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      // The tests play many clients on loopback, each named by X-Forwarded-For (see freshClient).
      TRUST_PROXY: 'loopback',
      // Far beyond any deadline below: a revoked session must be refused because of the
      // revocation event, never because its cached verification ran out.
      SESSION_CACHE_TTL_MS: String(10 * 60_000),
      // A client address's guesses at one account lock at the fifth, with no delays before it,
      // so how many pass does not depend on the machine's speed.
      LOGIN_DELAY_AFTER: '5',
      LOGIN_LOCK_AFTER: '5',
      // The same for one email's failures from every address, at 8.
      LOGIN_ACCOUNT_DELAY_AFTER: '8',
      LOGIN_ACCOUNT_LOCK_AFTER: '8',
    });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await smtp?.close();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${system.gatewayUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it("signs up, confirms through the mailed link's page (a GET alone changes nothing), and signs in", async () => {
    const email = `e2e.${Date.now()}@example.com`;
    const password = 'marigold-telescope-quarry-61';
    const signup = await post('/auth/signup', { email, password });
    expect(signup.status).toBe(202);
    expect((await post('/auth/login', { email, password })).status).toBe(403);

    const deadline = Date.now() + 15_000;
    while (!smtp.mails.some((m) => m.to === email) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const mail = smtp.mails.find((m) => m.to === email)!;
    const link = linkIn(mail);
    // Following the link (as a mail scanner does) changes nothing; its page's button confirms.
    const page = await fetch(`${system.gatewayUrl}${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await post('/auth/login', { email, password })).status).toBe(403);
    const confirmed = await pressConfirmButton(system, link);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Email address confirmed');
    const json = await post('/auth/verify-email', { token: link.searchParams.get('token') });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error_category: 'invalid_token' });

    const login = await post('/auth/login', { email, password });
    expect(login.status).toBe(200);
    const body = (await login.json()) as { data: { token: string; two_factor_required: boolean } };
    expect(body.data.two_factor_required).toBe(false);
    expect(login.headers.getSetCookie()[0]).toContain(`meridian_session=${body.data.token}`);
  });

  /** The nth mail to an address, waiting for it. */
  const mailText = async (email: string, nth: number) => (await mailTo(smtp, email, nth)).text;

  it('resets the password through the mailed link at the gateway; the old session is refused there soon after', async () => {
    const { email, session } = await signedInAccount(system, smtp, 'reset');
    const account = () =>
      fetch(`${system.gatewayUrl}/v1/account`, { headers: { authorization: `Bearer ${session}` } });
    // The gateway now holds this session's verification in its cache.
    expect((await account()).status).toBe(200);

    expect((await post('/auth/password/forgot', { email })).status).toBe(202);
    const link = linkIn({ text: await mailText(email, 2) });
    expect(link.pathname).toBe('/auth/password/reset');
    // The link's page, anonymous through the gateway; its form posts the token and a new password.
    const page = await fetch(`${system.gatewayUrl}${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    const form = (await page.text()).match(
      /<form method="post" action="([^"]+)">.*name="token" value="([^"]+)"/s,
    )!;
    const newPassword = 'juniper-cathedral-lantern-84';
    const done = await fetch(`${system.gatewayUrl}${form[1]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: form[2]!, password: newPassword }),
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password changed');

    // identity.session.revoked.v1 reaches the gateway, which drops the cached verification.
    const deadline = Date.now() + 15_000;
    let status = (await account()).status;
    while (status !== 401 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await account()).status;
    }
    expect(status).toBe(401);
    expect((await post('/auth/login', { email, password: newPassword })).status).toBe(200);
  });

  it('lists the sign-in providers', async () => {
    const res = await fetch(`${system.gatewayUrl}/auth/providers`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: { password: true, providers: [] } });
  });

  it('gates portal routes on the session, makes and revokes keys, and ends the session on logout', async () => {
    const { session } = await signedInAccount(system, smtp, 'portal');
    const bearer = { authorization: `Bearer ${session}` };
    expect((await fetch(`${system.gatewayUrl}/v1/account`)).status).toBe(401);
    const account = await fetch(`${system.gatewayUrl}/v1/account`, { headers: bearer });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ data: { plan: 'free', keys: [] } });

    const key = await createKey(system, session);
    const whoami = await fetch(`${system.gatewayUrl}/v1/agent/whoami`, { headers: { 'x-api-key': key.key } });
    expect(await whoami.json()).toMatchObject({ data: { auth: 'api_key', key_id: key.id, plan: 'free' } });
    const data = `${system.gatewayUrl}/v1/data/crypto/spot/reference_price?entity=BTC-USD`;
    expect((await fetch(data, { headers: { 'x-api-key': key.key } })).status).not.toBe(401);

    expect((await postJson(system, `/v1/keys/${key.id}/revoke`, {}, session)).status).toBe(200);
    const revokedAt = Date.now();
    let status = 0;
    while (Date.now() - revokedAt < 1000) {
      status = (await fetch(data, { headers: { 'x-api-key': key.key } })).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);

    const listed = (await (await fetch(`${system.gatewayUrl}/v1/account`, { headers: bearer })).json()) as {
      data: { keys: { id: string; revoked_at: string | null; key?: string }[] };
    };
    expect(listed.data.keys).toEqual([
      expect.objectContaining({ id: key.id, revoked_at: expect.any(String) }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(key.key);

    expect((await postJson(system, '/auth/logout', {}, session)).status).toBe(200);
    expect((await fetch(`${system.gatewayUrl}/v1/account`, { headers: bearer })).status).toBe(401);
  });

  /** A client address of its own, which the gateway (trusting loopback) forwards to identity. */
  const freshClient = clientAddresses();
  const postFrom = (client: string, path: string, body: unknown, session?: string) =>
    postFromClient(system, client, path, body, session);

  const linkOf = (text: string) => linkIn({ text });

  describe('account pre-hijacking', () => {
    const attackerPassword = 'squatter-chosen-passphrase-31';
    const victimPassword = 'harbour-lantern-quince-58';

    it("a victim's own sign-up voids the squatter's pending password and link", async () => {
      const email = `prehijack.${Date.now()}@example.com`;
      const [attacker, victim] = [freshClient(), freshClient()];
      expect((await postFrom(attacker, '/auth/signup', { email, password: attackerPassword })).status).toBe(
        202,
      );
      const first = linkOf(await mailText(email, 1));
      expect((await postFrom(victim, '/auth/signup', { email, password: victimPassword })).status).toBe(202);
      const second = linkOf(await mailText(email, 2));
      expect((await pressConfirmButton(system, first)).status).toBe(400);
      expect((await pressConfirmButton(system, second)).status).toBe(200);
      expect((await postFrom(attacker, '/auth/login', { email, password: attackerPassword })).status).toBe(
        401,
      );
      expect((await postFrom(victim, '/auth/login', { email, password: victimPassword })).status).toBe(200);
    });

    it("the victim's reset through the mail removes the squatter's key, second factor and session", async () => {
      const email = `squatted.${Date.now()}@example.com`;
      const [attacker, victim] = [freshClient(), freshClient()];
      expect((await postFrom(attacker, '/auth/signup', { email, password: attackerPassword })).status).toBe(
        202,
      );
      // The victim follows the link with the token alone (as a mail scanner or a script would).
      const token = linkOf(await mailText(email, 1)).searchParams.get('token');
      expect((await postFrom(victim, '/auth/verify-email', { token })).status).toBe(200);

      const login = await postFrom(attacker, '/auth/login', { email, password: attackerPassword });
      expect(login.status).toBe(200);
      const session = ((await login.json()) as { data: { token: string } }).data.token;
      const key = await createKey(system, session);
      const whoami = () =>
        fetch(`${system.gatewayUrl}/v1/agent/whoami`, { headers: { 'x-api-key': key.key } });
      expect((await whoami()).status).toBe(200);
      const enrol = await postFrom(
        attacker,
        '/v1/account/2fa/enrol',
        { password: attackerPassword },
        session,
      );
      const { secret } = ((await enrol.json()) as { data: { secret: string } }).data;
      const activate = await postFrom(
        attacker,
        '/v1/account/2fa/activate',
        { code: totpCode(secret) },
        session,
      );
      expect(activate.status).toBe(200);

      expect((await postFrom(victim, '/auth/password/forgot', { email })).status).toBe(202);
      const reset = linkOf(await mailText(email, 2));
      const done = await postFrom(victim, '/auth/password/reset', {
        token: reset.searchParams.get('token'),
        password: victimPassword,
      });
      expect(done.status).toBe(200);

      // identity.key.revoked.v1 and identity.session.revoked.v1 reach the gateway, which drops them.
      expect(await eventuallyAnswered(401, whoami)).toBe(401);
      const account = () =>
        fetch(`${system.gatewayUrl}/v1/account`, { headers: { authorization: `Bearer ${session}` } });
      expect(await eventuallyAnswered(401, account)).toBe(401);
      expect((await postFrom(attacker, '/auth/login', { email, password: attackerPassword })).status).toBe(
        401,
      );
      const mine = await postFrom(victim, '/auth/login', { email, password: victimPassword });
      expect(mine.status).toBe(200);
      const signedIn = (await mine.json()) as { data: { two_factor_required: boolean; token: string } };
      expect(signedIn.data.two_factor_required).toBe(false);
      const listed = await fetch(`${system.gatewayUrl}/v1/account`, {
        headers: { authorization: `Bearer ${signedIn.data.token}` },
      });
      expect(await listed.json()).toMatchObject({
        data: {
          two_factor: 'off',
          keys: [expect.objectContaining({ id: key.id, revoked_at: expect.any(String) })],
        },
      });
    });
  });

  it('limits sign-ups from one client address through the gateway (429 with retry_after); others go on', async () => {
    const flooder = freshClient();
    const emails = Array.from({ length: 15 }, (_, i) => `flood${i}.${Date.now()}@example.com`);
    const answers = await Promise.all(
      emails.map((email) =>
        postFrom(flooder, '/auth/signup', { email, password: 'marigold-telescope-quarry-61' }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(10).fill(202), ...Array(5).fill(429)]);
    const refused = (await answers.find((a) => a.status === 429)!.json()) as Record<string, unknown>;
    expect(refused).toMatchObject({ error_category: 'rate_limit', retryable: true });
    expect(refused.retry_after).toEqual(expect.any(Number));
    const other = await postFrom(freshClient(), '/auth/signup', {
      email: `notflood.${Date.now()}@example.com`,
      password: 'marigold-telescope-quarry-61',
    });
    expect(other.status).toBe(202);
    // Only the accepted sign-ups are mailed: ten arrive, and no more after a while.
    const flooded = () => smtp.mails.filter((m) => emails.includes(m.to)).length;
    const deadline = Date.now() + 15_000;
    while (flooded() < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1000));
    expect(flooded()).toBe(10);
  });

  it('limits key creation per account through the gateway, revoked keys included', async () => {
    const { session } = await signedInAccount(system, smtp, 'churn');
    for (let i = 0; i < 10; i++) {
      const key = await createKey(system, session);
      expect((await postJson(system, `/v1/keys/${key.id}/revoke`, {}, session)).status).toBe(200);
    }
    const refused = await postJson(system, '/v1/keys', {}, session);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      error_category: 'rate_limit',
      retry_after: expect.any(Number),
    });
  });

  it("one client address's failed sign-ins lock that address out of the account, not its owner", async () => {
    const { email, password } = await signedInAccount(system, smtp, 'lockout');
    const attacker = freshClient();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await postFrom(attacker, '/auth/login', { email, password: `wrong-guess-number-${i}` })).status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await postFrom(attacker, '/auth/login', { email, password })).status).toBe(429);
    expect((await postFrom(freshClient(), '/auth/login', { email, password })).status).toBe(200);
  });

  it("failures from many addresses hold the account back, except for the browser that follows its owner's mailed unlock link", async () => {
    const { email, password } = await signedInAccount(system, smtp, 'unlock');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        postFrom(freshClient(), '/auth/login', { email, password: `wrong-guess-number-${i}` }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(8).fill(401), ...Array(4).fill(429)]);
    const owner = freshClient();
    expect((await postFrom(owner, '/auth/login', { email, password })).status).toBe(429);

    const link = linkOf(await mailText(email, 2));
    expect(link.pathname).toBe('/auth/unlock');
    // The link's page through the gateway changes nothing; its button posts the token.
    const page = await fetch(`${system.gatewayUrl}${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect((await postFrom(owner, '/auth/login', { email, password })).status).toBe(429);
    const form = (await page.text()).match(
      /<form method="post" action="([^"]+)">.*name="token" value="([^"]+)"/s,
    )!;
    const unlock = () =>
      fetch(`${system.gatewayUrl}${form[1]}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: form[2]! }),
      });
    const unlocked = await unlock();
    expect(unlocked.status).toBe(200);
    expect(await unlocked.text()).toContain('Sign-in unlocked');
    // The browser that posted the link keeps a device cookie (through the gateway); it signs in,
    // from any address, while the lock holds for everyone else.
    const device = unlocked.headers
      .getSetCookie()
      .find((c) => c.startsWith('meridian_device='))!
      .split(';')[0]!;
    const fromBrowser = await fetch(`${system.gatewayUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': freshClient(), cookie: device },
      body: JSON.stringify({ email, password }),
    });
    expect(fromBrowser.status).toBe(200);
    expect((await postFrom(freshClient(), '/auth/login', { email, password })).status).toBe(429);
    expect((await unlock()).status).toBe(400);
  });
});
