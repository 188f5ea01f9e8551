import request from 'supertest';
import type { Harness } from '../harness.js';
import { anonymous } from '../flows.js';

/**
 * A POST from client address `ip` (X-Forwarded-For, as the gateway forwards it): anonymous, or as
 * the caller `headers` name.
 */
export async function postFrom(
  h: Harness,
  path: string,
  body: unknown,
  ip: string,
  headers?: Record<string, string>,
) {
  return request(h.app)
    .post(path)
    .set(headers ?? (await anonymous()))
    .set('x-forwarded-for', ip)
    .send(body as object);
}
