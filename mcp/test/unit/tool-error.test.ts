import { describe, expect, it } from '@jest/globals';
import { rateLimitOf, retryAfterOf } from '../../src/domain/rate-limit.js';
import { invalidCursor, toolError } from '../../src/domain/tool-error.js';
import { unknownMetric } from '../../src/domain/unknown-metric.js';

const problem = (status: number, error_category: string, detail: string, extra: object = {}) => ({
  type: `https://meridian.example/errors/${error_category}`,
  title: error_category,
  status,
  detail,
  error_category,
  retryable: false,
  ...extra,
});

describe('a refusal of the data API as a typed tool error', () => {
  it('401: unauthorized, telling how to get a key and send it on each transport', () => {
    const e = toolError({
      status: 401,
      body: problem(401, 'unauthorized', 'The key is revoked.'),
      keySent: true,
    });
    expect(e).toMatchObject({ error_category: 'unauthorized', status: 401, detail: 'The key is revoked.' });
    expect(e.what_to_do).toMatch(/POST \/v1\/keys/);
    expect(e.what_to_do).toMatch(/Authorization: Bearer <key>/);
    expect(e.what_to_do).toMatch(/--key <key>/);
  });

  it('402 without a key: api_key_required, the detail from the x402 challenge', () => {
    const challenge = {
      x402Version: 2,
      error: 'No API key and no PAYMENT-SIGNATURE header was sent.',
      accepts: [],
    };
    const e = toolError({ status: 402, body: challenge, keySent: false });
    expect(e).toMatchObject({
      error_category: 'api_key_required',
      status: 402,
      detail: 'No API key and no PAYMENT-SIGNATURE header was sent.',
    });
    expect(e.what_to_do).toMatch(/free key needs no card/);
    expect(e.what_to_do).toMatch(/x402\) is possible over plain HTTP only/);
  });

  it('402 with a key: payment_required, use a key whose plan covers the metric', () => {
    const e = toolError({ status: 402, body: { x402Version: 2, error: 'priced' }, keySent: true });
    expect(e).toMatchObject({ error_category: 'payment_required', status: 402, detail: 'priced' });
    expect(e.what_to_do).toMatch(/key whose plan covers the metric/);
  });

  it('403: tier_forbidden with the API detail naming metric and plan, and no retry', () => {
    const detail = 'crypto/options/chain needs the pro plan; this key is on free.';
    const e = toolError({ status: 403, body: problem(403, 'tier_forbidden', detail), keySent: true });
    expect(e).toEqual({
      error_category: 'tier_forbidden',
      status: 403,
      detail,
      what_to_do: expect.any(String),
    });
    expect(e.what_to_do).toMatch(/Upgrade the plan/);
    expect(e.what_to_do).toMatch(/do not retry/);
  });

  it('429: rate_limit with retry_after from the Retry-After header, else from the body', () => {
    const body = problem(429, 'rate_limit', 'Too many requests.', { retryable: true, retry_after: 12 });
    const fromHeader = toolError({ status: 429, body, retryAfter: 30, keySent: true });
    expect(fromHeader).toMatchObject({ error_category: 'rate_limit', status: 429, retry_after: 30 });
    expect(fromHeader.what_to_do).toMatch(/^Wait 30 s and retry/);
    const fromBody = toolError({ status: 429, body, keySent: true });
    expect(fromBody.retry_after).toBe(12);
    const without = toolError({ status: 429, keySent: true });
    expect(without).not.toHaveProperty('retry_after');
    expect(without.what_to_do).toMatch(/^Wait the retry_after seconds/);
  });

  it('404: not_yet_available for a planned metric, the API category otherwise', () => {
    const planned = toolError({
      status: 404,
      body: problem(404, 'not_yet_available', 'planned'),
      keySent: true,
    });
    expect(planned).toMatchObject({ error_category: 'not_yet_available', detail: 'planned' });
    expect(planned.what_to_do).toMatch(/pick a live metric/);
    const missing = toolError({
      status: 404,
      body: problem(404, 'not_found', 'No such entity.'),
      keySent: true,
    });
    expect(missing).toMatchObject({ error_category: 'not_found' });
    expect(missing.what_to_do).toMatch(/Check the entity and source/);
  });

  it('400: the API category and detail, change the arguments', () => {
    const e = toolError({
      status: 400,
      body: problem(400, 'validation_failed', 'entity: unknown'),
      keySent: true,
    });
    expect(e).toMatchObject({ error_category: 'validation_failed', status: 400, detail: 'entity: unknown' });
    expect(e.what_to_do).toMatch(/Change the arguments/);
  });

  it('no answer or a 5xx: upstream_unavailable, safe to retry', () => {
    const none = toolError({ status: 503, keySent: true });
    expect(none).toMatchObject({
      error_category: 'upstream_unavailable',
      detail: 'The data API did not answer.',
    });
    expect(none.what_to_do).toMatch(/^Retry shortly/);
    expect(toolError({ status: 500, body: 'not json', keySent: false }).error_category).toBe(
      'upstream_unavailable',
    );
  });

  it('another status: request_failed naming it', () => {
    expect(toolError({ status: 409, keySent: true })).toMatchObject({
      error_category: 'request_failed',
      detail: 'The data API answered 409.',
    });
  });

  it('an altered or foreign cursor: invalid_cursor, repeat without it', () => {
    expect(invalidCursor()).toMatchObject({ error_category: 'invalid_cursor', status: 400 });
  });
});

describe('a metric the catalogue lacks', () => {
  it('lists the metrics of the product', () => {
    const e = unknownMetric({ category: 'crypto', product: 'spot', metric: 'chain' });
    expect(e).toMatchObject({ error_category: 'invalid_argument', status: 400 });
    expect(e.detail).toBe('crypto/spot/chain is not a metric of the catalogue.');
    expect(e.what_to_do).toMatch(/^Metrics of crypto\/spot: .*reference_price/);
  });

  it('lists the products of the category when the product is not one of it', () => {
    const e = unknownMetric({ category: 'crypto', product: 'nope', metric: 'chain' });
    expect(e.detail).toBe('crypto/nope is not a product of the catalogue.');
    expect(e.what_to_do).toMatch(/^Products of crypto: .*spot/);
    expect(unknownMetric({ category: 'nope', product: 'spot', metric: 'x' }).what_to_do).toMatch(
      /browse_catalog/,
    );
  });
});

describe('rate-limit headers', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;

  it('read the limit, what remains and the reset', () => {
    expect(
      rateLimitOf(headers({ 'ratelimit-limit': '10', 'ratelimit-remaining': '9', 'ratelimit-reset': '42' })),
    ).toEqual({ limit: 10, remaining: 9, reset_s: 42 });
  });

  it('give nothing without a usable limit, and 0 for a missing or garbled part', () => {
    expect(rateLimitOf(headers({}))).toBeUndefined();
    expect(rateLimitOf(headers({ 'ratelimit-limit': 'lots' }))).toBeUndefined();
    expect(rateLimitOf(headers({ 'ratelimit-limit': '10', 'ratelimit-remaining': 'x' }))).toEqual({
      limit: 10,
      remaining: 0,
      reset_s: 0,
    });
  });

  it('Retry-After in seconds; an HTTP date or garbage is no number', () => {
    expect(retryAfterOf('7')).toBe(7);
    expect(retryAfterOf(null)).toBeUndefined();
    expect(retryAfterOf('')).toBeUndefined();
    expect(retryAfterOf('Wed, 21 Oct 2026 07:28:00 GMT')).toBeUndefined();
    expect(retryAfterOf('-3')).toBeUndefined();
  });
});
