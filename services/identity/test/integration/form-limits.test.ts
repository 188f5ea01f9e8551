import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { freshEmail, linkIn, startHarness, type Harness } from './harness.js';
import { anonymous, signUpConfirmed } from './flows.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('identity_form_limits');
});

afterAll(async () => {
  await h?.close();
});

/** A browser-style form post with the token, a password and filler fields up to `fields`. */
async function postForm(path: string, fields: Record<string, string>, count: number) {
  const form: Record<string, string> = { ...fields };
  for (let i = Object.keys(form).length; i < count; i++) form[`filler${i}`] = 'x';
  return request(h.app)
    .post(path)
    .set(await anonymous())
    .type('form')
    .send(form);
}

describe('form posts with more fields than the page sends', () => {
  it('answer 413 problems on the reset and confirmation forms, and log no token, password or stack', async () => {
    const email = freshEmail();
    await signUpConfirmed(h, email);
    await request(h.app)
      .post('/auth/password/forgot')
      .set(await anonymous())
      .send({ email });
    const token = linkIn(await h.mailTo(email, 2)).searchParams.get('token')!;
    const password = 'marigold-turbine-envelope-58';
    const logStart = h.logLines.length;

    const reset = await postForm('/auth/password/reset', { token, password }, 7);
    const confirm = await postForm('/auth/verify-email', { token }, 6);
    for (const res of [reset, confirm]) {
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 413, error_category: 'payload_too_large' });
    }

    const logged = h.logLines.slice(logStart).join('\n');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(password);
    expect(logged).not.toContain('unhandled error');
    expect(logged).not.toMatch(/\bat \S+ \(/);

    // The refused posts changed nothing: the token still resets the password once.
    const done = await postForm('/auth/password/reset', { token, password }, 2);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Password changed');
  });
});
