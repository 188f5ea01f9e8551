import type { Finding } from '@meridian/contracts';
import type { Response } from '../../../src/domain/observations.js';

export const ids = (list: Finding[]) => list.map((f) => f.id);
export const byId = (list: Finding[], id: string) => list.find((f) => f.id === id);
/** The instant the checks judge certificates and security.txt expiry by. */
export const now = new Date('2026-06-01T00:00:00Z');

export function page(headers: Response['headers'] = {}, body = '', url = 'https://example.com/'): Response {
  return { url, status: 200, headers, body, bytes: Buffer.byteLength(body), truncated: false, ttfbMs: 50 };
}
