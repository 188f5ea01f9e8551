// OpenID Connect sign-in by the email a provider claims: only a verified address opens or links an
// account, an unconfirmed account's creator is disowned, and nothing is mailed or kept on a refusal.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { EVENTS, RPC, type CloudEvent } from '@meridian/contracts';
import type { OidcPeer } from '@meridian/test-peers';
import { insertApiKey } from '../../src/db/repositories/api-keys.js';
import { insertLink } from '../../src/db/repositories/oidc.js';
import { replaceRecoveryCodes, setTwoFactor } from '../../src/db/repositories/two-factor.js';
import { newApiKey } from '../../src/domain/api-key.js';
import { startSession } from '../../src/flows/sessions.js';
import { freshEmail, linkIn, type Harness } from './harness.js';
import { anonymous, pressConfirmButton, signIn, signUpConfirmed, submitResetForm } from './flows.js';
import {
  expectRefused,
  providerSignIn,
  startOidcBed,
  storedAccounts,
  UNVERIFIED,
} from './support/oidc-calls.js';

let h: Harness;
let idp: OidcPeer;
const { providerCallback, signInThroughProvider } = providerSignIn(() => ({ h, idp }));
const { linkOf, accountOf, mailsQueuedTo, sessionsOf, signUpUnconfirmed } = storedAccounts(() => h);

beforeAll(async () => {
  ({ h, idp } = await startOidcBed('identity_oidc_claims'));
});

afterAll(async () => {
  await h?.close();
  await idp?.close();
});

describe('OpenID Connect sign-in by the email a provider claims', () => {
  it('refuses an email the provider does not verify: no account, no link, no mail', async () => {
    const email = freshEmail();
    idp.people.set('ivy-sub', { email, email_verified: false });
    expectRefused(await providerCallback('ivy-sub'), UNVERIFIED);
    expect(await accountOf(email)).toBeUndefined();
    expect(await linkOf('ivy-sub')).toBeUndefined();
    expect(await mailsQueuedTo(email)).toEqual([]);
  });

  it("gives an unverified claim on a confirmed account's address no session and no link", async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    const owner = await signIn(h, email);
    const mailsBefore = await mailsQueuedTo(email);
    const sessionsBefore = await sessionsOf(owner.account_id);
    idp.people.set('mallory-sub', { email, email_verified: false });
    expectRefused(await providerCallback('mallory-sub'), UNVERIFIED);
    expect(await linkOf('mallory-sub')).toBeUndefined();
    expect(await sessionsOf(owner.account_id)).toEqual(sessionsBefore);
    expect(await mailsQueuedTo(email)).toEqual(mailsBefore);
  });

  it("leaves an unverified claim on a fresh address no way in once the address's owner signs up", async () => {
    const email = freshEmail();
    idp.people.set('trudy-sub', { email, email_verified: false });
    expectRefused(await providerCallback('trudy-sub'), UNVERIFIED);
    expect(await accountOf(email)).toBeUndefined();
    // The address's owner signs up and confirms it; the identity still gets neither link nor session.
    await signUpConfirmed(h, email);
    const owner = await signIn(h, email);
    const sessionsBefore = await sessionsOf(owner.account_id);
    expectRefused(await providerCallback('trudy-sub'), UNVERIFIED);
    expect(await linkOf('trudy-sub')).toBeUndefined();
    expect(await sessionsOf(owner.account_id)).toEqual(sessionsBefore);
  });

  it('refuses a link to an unconfirmed account, and drops it when the address is confirmed', async () => {
    const email = freshEmail();
    const id = await signUpUnconfirmed(email);
    // A link the earlier code could make on an unverified claim; none is made over HTTP any more.
    await insertLink(h.deps.db, idp.issuer, 'legacy-sub', id);
    idp.people.set('legacy-sub', { email, email_verified: false });
    expectRefused(await providerCallback('legacy-sub'), /has not confirmed its email address/);
    expect(await sessionsOf(id)).toEqual([]);

    expect((await pressConfirmButton(h, linkIn(await h.mailTo(email)))).status).toBe(200);
    expect(await linkOf('legacy-sub')).toBeUndefined();
    expectRefused(await providerCallback('legacy-sub'), UNVERIFIED);
    expect(await sessionsOf(id)).toEqual([]);
  });

  it('keeps a link made after the address was confirmed when an older confirmation link is used', async () => {
    const email = freshEmail();
    const id = await signUpUnconfirmed(email);
    const confirmation = linkIn(await h.mailTo(email));
    idp.people.set('heidi-sub', { email, email_verified: true });
    expect(await signInThroughProvider('heidi-sub')).toBe(id);
    expect((await pressConfirmButton(h, confirmation)).status).toBe(200);
    expect(await linkOf('heidi-sub')).toEqual({ account_id: id });
  });

  it("asks userinfo whether the ID token's address is verified when the token does not say", async () => {
    const email = freshEmail();
    idp.people.set('split-sub', { email, email_verified: true, inIdToken: ['email'] });
    const id = await signInThroughProvider('split-sub');
    expect(await linkOf('split-sub')).toEqual({ account_id: id });
    expect((await accountOf(email))?.id).toBe(id);
    // Userinfo saying it is not verified still refuses.
    idp.people.set('split-unverified-sub', {
      email: freshEmail(),
      email_verified: false,
      inIdToken: ['email'],
    });
    expectRefused(await providerCallback('split-unverified-sub'), UNVERIFIED);
  });

  it('takes an ID token that says both the address and its verification as it is', async () => {
    const email = freshEmail();
    idp.people.set('whole-sub', { email, email_verified: true, inIdToken: ['email', 'email_verified'] });
    const id = await signInThroughProvider('whole-sub');
    expect((await accountOf(email))?.id).toBe(id);
  });

  it('refuses an identity that shares no email, and makes no account for it', async () => {
    idp.people.set('nomail-sub', { email_verified: false });
    const accounts = async () =>
      (
        await h.deps.db
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await accounts();
    const res = await providerCallback('nomail-sub');
    expect(res.status).toBe(400);
    expect(res.body.error_category).toBe('oidc_refused');
    expect(res.body.detail).toMatch(/no email address/);
    expect(await linkOf('nomail-sub')).toBeUndefined();
    expect(await accounts()).toBe(before);
  });

  it('drops the links of an account never confirmed when its password is reset through the mail', async () => {
    const email = freshEmail();
    const id = await signUpUnconfirmed(email, 'squatter-chosen-passphrase-31');
    await insertLink(h.deps.db, idp.issuer, 'sneaky-sub', id);
    // The owner ignores the confirmation mail and resets the password through the second one.
    const forgot = await request(h.app)
      .post('/auth/password/forgot')
      .set(await anonymous())
      .send({ email });
    expect(forgot.status).toBe(202);
    const link = linkIn(await h.mailTo(email, 2));
    expect(link.pathname).toBe('/auth/password/reset');
    const newPassword = 'saffron-lighthouse-cobble-93';
    expect((await submitResetForm(h, link, newPassword)).status).toBe(200);

    expect(await linkOf('sneaky-sub')).toBeUndefined();
    idp.people.set('sneaky-sub', { email, email_verified: false });
    expectRefused(await providerCallback('sneaky-sub'), UNVERIFIED);
    expect(await linkOf('sneaky-sub')).toBeUndefined();
    expect((await signIn(h, email, newPassword)).account_id).toBe(id);
  });

  it('disowns an unconfirmed account before linking it: the squatter keeps no password, session, key or 2FA', async () => {
    const email = freshEmail();
    const squatter = 'squatter-chosen-passphrase-31';
    const id = await signUpUnconfirmed(email, squatter);
    // What a creator could hold; none of it is reachable over HTTP before confirmation, so planted here.
    const session = await h.deps.db.transaction().execute((trx) => startSession(trx, h.deps, id, 'password'));
    const key = newApiKey();
    const { id: keyId, prefix, salt, secretHash } = key;
    await insertApiKey(h.deps.db, {
      id: keyId,
      prefix,
      salt,
      secret_hash: secretHash,
      account_id: id,
      created_at: new Date(),
    });
    await setTwoFactor(h.deps.db, id, { totp_state: 'active', totp_secret_sealed: 'sealed-by-squatter' });
    await replaceRecoveryCodes(h.deps.db, id, ['squatter-recovery-hash']);
    await insertLink(h.deps.db, idp.issuer, 'squatter-sub', id);

    idp.people.set('owner-sub', { email, email_verified: true });
    expect(await signInThroughProvider('owner-sub')).toBe(id);

    const login = await request(h.app)
      .post('/auth/login')
      .set(await anonymous())
      .send({ email, password: squatter });
    expect(login.status).toBe(401);
    expect(await linkOf('squatter-sub')).toBeUndefined();
    expect((await h.bus.request(RPC.identitySessionVerify, { token: session.token })).ok).toBe(false);
    expect((await h.bus.request(RPC.identityKeyVerify, { key: key.key })).ok).toBe(false);
    const account = await h.deps.db
      .selectFrom('accounts')
      .select(['password_hash', 'totp_state', 'totp_secret_sealed', 'email_confirmed_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({
      password_hash: null,
      totp_state: 'off',
      totp_secret_sealed: null,
      email_confirmed_at: expect.any(Date),
    });
    const codes = await h.deps.db
      .selectFrom('recovery_codes')
      .select('code_hash')
      .where('account_id', '=', id)
      .execute();
    expect(codes).toEqual([]);
    const announced = (await h.deps.db.selectFrom('outbox').select('payload').execute()).map(
      (r) => r.payload as CloudEvent<{ account_id: string; session_id?: string; key_id?: string }>,
    );
    expect(announced).toContainEqual(
      expect.objectContaining({
        type: EVENTS.identitySessionRevoked,
        data: expect.objectContaining({ session_id: session.session_id }),
      }),
    );
    expect(announced).toContainEqual(
      expect.objectContaining({
        type: EVENTS.identityKeyRevoked,
        data: expect.objectContaining({ key_id: key.id }),
      }),
    );
  });
});
