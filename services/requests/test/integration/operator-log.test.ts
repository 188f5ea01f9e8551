import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { operatorHeaders } from '@meridian/http-kit/testing';
import { insertOperatorAction } from '../../src/db/repositories/service-requests.js';
import { startRequests, type Requests } from './harness.js';

/** GET /v1/operator/requests/log: the requests service's operator log, as the console reads it. */
describe('operator log of the requests service', () => {
  let h: Requests;
  const [ada, bob] = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    h = await startRequests('requests_operator_log');
    // As the mark flow writes them (its own test holds that it does); the times are fixed here.
    const marks: [string, string, number][] = [
      [ada, 'reviewed', 1],
      [bob, 'closed', 1],
      [ada, 'closed', 2],
    ];
    for (const [i, [operator, status, id]] of marks.entries())
      await insertOperatorAction(h.deps.db, {
        at: new Date(Date.UTC(2026, 10, 30, 9, i)),
        actor: `operator:${operator}`,
        action: `request.mark.${status}`,
        target: `request:${id}`,
        reason: `note ${i}`,
      });
  });
  afterAll(async () => h?.close());

  const get = async (query: string, headers?: Record<string, string>) =>
    request(h.app)
      .get(`/v1/operator/requests/log?${query}`)
      .set(headers ?? (await operatorHeaders(ada)));
  const targets = async (query: string) =>
    ((await get(query)).body.data as { target: string; action: string }[]).map(
      (r) => `${r.action} ${r.target}`,
    );

  it('refuses a session without the operator role, and an operator without TOTP', async () => {
    const plain = await h.as(ada);
    expect((await get('', plain)).status).toBe(403);
    expect((await get('', plain)).body.error_category).toBe('operator_role_required');
    expect((await get('', await operatorHeaders(ada, { totp_active: false }))).status).toBe(403);
  });

  it('answers the log newest first, filtered by operator, action, target and dates', async () => {
    expect(await targets('')).toEqual([
      'request.mark.closed request:2',
      'request.mark.closed request:1',
      'request.mark.reviewed request:1',
    ]);
    expect(await targets(`operator=${ada}`)).toEqual([
      'request.mark.closed request:2',
      'request.mark.reviewed request:1',
    ]);
    expect(await targets('action=request.mark.closed&target=1')).toEqual(['request.mark.closed request:1']);
    expect(await targets('since=2026-11-30T09:01:00Z&until=2026-11-30T09:02:00Z')).toEqual([
      'request.mark.closed request:1',
    ]);
    const bad = await get('since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('query.since');
  });

  it('pages with a cursor that cannot be altered or used with other filters', async () => {
    const first = await get('limit=2');
    const cursor = first.body.meta.next_cursor as string;
    expect((await get(`limit=2&cursor=${cursor}`)).body.data).toHaveLength(1);
    const [body, sig] = cursor.split('.');
    const state = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...state, b: 999 })).toString('base64url');
    for (const query of [`limit=2&cursor=${forged}.${sig}`, `limit=2&operator=${bob}&cursor=${cursor}`])
      expect((await get(query)).status).toBe(400);
  });
});
