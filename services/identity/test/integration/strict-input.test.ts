import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startHarness, type Harness } from './harness.js';
import { anonymous } from './flows.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('identity_strict_input');
});

afterAll(async () => {
  await h?.close();
});

const TOKEN = 'tok_0123456789abcdefghijklmnop';

describe('sign-in routes say what they take', () => {
  it('refuses an unknown query parameter on the mailed-link pages, naming it and the parameter taken', async () => {
    for (const path of [
      '/auth/verify-email',
      '/auth/password/reset',
      '/auth/unlock',
      '/auth/oauth/link/confirm',
    ]) {
      const res = await request(h.app)
        .get(`${path}?token=${TOKEN}&tokn=x`)
        .set(await anonymous());
      expect([path, res.status, res.body.errors?.[0]?.path]).toEqual([path, 400, 'query.tokn']);
      expect(res.body.detail).toContain('this route takes token');
      const fine = await request(h.app)
        .get(`${path}?token=${TOKEN}`)
        .set(await anonymous());
      expect([path, fine.status]).toEqual([path, 200]);
    }
  });

  it('answers a form or text body to a JSON route 415, and still reads the forms of the pages', async () => {
    const login = await request(h.app)
      .post('/auth/login')
      .set(await anonymous())
      .type('form')
      .send('email=a%40example.com&password=x');
    expect([login.status, login.body.error_category]).toEqual([415, 'unsupported_media_type']);
    expect(login.body.detail).toContain('application/json');
    const text = await request(h.app)
      .post('/auth/signup')
      .set(await anonymous())
      .set('content-type', 'text/plain')
      .send('{"email":"a@example.com"}');
    expect(text.status).toBe(415);
    const page = await request(h.app)
      .post('/auth/verify-email')
      .set(await anonymous())
      .type('form')
      .send(`token=${TOKEN}`);
    expect(page.status).toBe(400);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });
});
