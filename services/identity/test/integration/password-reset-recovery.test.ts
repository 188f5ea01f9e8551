// A reset proves the mailbox: its page offers to turn TOTP off (a lost authenticator would lock the
// owner out for good) and names the API keys that stay live, with the choice to revoke them all.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generate } from 'otplib';
import request from 'supertest';
import { freshEmail, linkIn, startHarness, STRONG_PASSWORD, type Harness } from './harness.js';
import { anonymous, signIn, signUpConfirmed, type SignedIn } from './flows.js';

const NEW_PASSWORD = 'saffron-lighthouse-cobble-93';

describe('password reset of an account with TOTP and keys', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('identity_reset_recovery');
  });
  afterAll(async () => h?.close());

  /** An account with TOTP on and two live keys; the reset link mailed to it. */
  async function lockedOutOwner(): Promise<{
    email: string;
    owner: SignedIn;
    prefixes: string[];
    link: URL;
  }> {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const owner = await signIn(h, email);
    const enrol = await request(h.app)
      .post('/v1/account/2fa/enrol')
      .set(owner.headers)
      .send({ password: STRONG_PASSWORD });
    const secret = enrol.body.data.secret as string;
    const code = await generate({ secret, epoch: Date.now() / 1000 - 30 });
    expect(
      (await request(h.app).post('/v1/account/2fa/activate').set(owner.headers).send({ code })).status,
    ).toBe(200);
    const prefixes: string[] = [];
    for (let i = 0; i < 2; i++)
      prefixes.push(
        (await request(h.app).post('/v1/keys').set(owner.headers).send({})).body.data.prefix as string,
      );
    await request(h.app)
      .post('/auth/password/forgot')
      .set(await anonymous())
      .send({ email });
    return { email, owner, prefixes, link: linkIn(await h.mailTo(email, 2)) };
  }

  const submit = async (link: URL, choices: Record<string, string>) =>
    request(h.app)
      .post('/auth/password/reset')
      .set(await anonymous())
      .type('form')
      .send({ token: link.searchParams.get('token')!, password: NEW_PASSWORD, ...choices });
  const logIn = async (email: string) =>
    request(h.app)
      .post('/auth/login')
      .set(await anonymous())
      .send({ email, password: NEW_PASSWORD });

  it('offers to turn TOTP off and names the live keys by prefix, then does both when asked', async () => {
    const { email, owner, prefixes, link } = await lockedOutOwner();
    const page = await request(h.app)
      .get(`${link.pathname}${link.search}`)
      .set(await anonymous());
    expect(page.text).toContain('name="remove_totp"');
    expect(page.text).toContain('These 2 API keys stay live after the reset');
    for (const prefix of prefixes) expect(page.text).toContain(`<code>${prefix}…</code>`);

    const done = await submit(link, { remove_totp: 'on', revoke_keys: 'on' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Two-factor sign-in is off. 2 API keys were revoked.');
    const login = await logIn(email);
    expect(login.status).toBe(200);
    expect(login.body.data.two_factor_required ?? false).toBe(false);
    const keys = await h.deps.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('account_id', '=', owner.account_id)
      .execute();
    expect(keys.map((k) => k.revoked_at !== null)).toEqual([true, true]);
  });

  it('keeps TOTP and the keys unless the owner asks, as JSON says', async () => {
    const { email, link } = await lockedOutOwner();
    const json = await request(h.app)
      .post('/auth/password/reset')
      .set(await anonymous())
      .send({ token: link.searchParams.get('token')!, password: NEW_PASSWORD });
    expect(json.body.data).toEqual({
      password_reset: true,
      sessions_revoked: 1,
      totp_removed: false,
      keys_revoked: 0,
    });
    expect((await logIn(email)).body.data).toMatchObject({ two_factor_required: true });
  });
});
