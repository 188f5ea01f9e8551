import { describe, expect, it } from '@jest/globals';
import { rateLimitCode, venueRefusal } from '../../src/adapters/connectors/venue-refusals.js';

describe("venues' refusals in the body of an answer", () => {
  it("knows each venue's rate-limit codes, and no other venue's", () => {
    expect(rateLimitCode('bybit', '10006')).toBe(true);
    expect(rateLimitCode('bybit', '10018')).toBe(true);
    expect(rateLimitCode('okx', '50061')).toBe(true);
    expect(rateLimitCode('deribit', '10028')).toBe(true);
    expect(rateLimitCode('okx', '10006')).toBe(false);
    expect(rateLimitCode('bybit', '100060')).toBe(false);
    expect(rateLimitCode('bitstamp', 'error')).toBe(false);
  });

  it("reads Kraken's throttle with the time it carries, among other errors", () => {
    expect(rateLimitCode('kraken', 'EService:Throttled:1764121200')).toBe(true);
    expect(rateLimitCode('kraken', 'EService:Unavailable')).toBe(false);
    const refusal = venueRefusal('kraken', ['EQuery:Unknown asset pair', 'EAPI:Rate limit exceeded'], '');
    expect(refusal).toMatchObject({ kind: 'rate_limited' });
    expect(refusal.message).toBe('kraken refused: EQuery:Unknown asset pair, EAPI:Rate limit exceeded');
  });

  it('waits only on a rate limit, and names the request when told', () => {
    const limited = venueRefusal('deribit', '10028', 'too_many_requests', {
      where: '/api/v2/x',
      waitMs: 5_000,
    });
    expect(limited).toMatchObject({ kind: 'rate_limited', retryAfterMs: 5_000 });
    expect(limited.message).toBe('/api/v2/x: deribit refused: 10028 too_many_requests');
    const other = venueRefusal('deribit', '-32602', 'Invalid params', { waitMs: 5_000, status: 400 });
    expect(other).toMatchObject({ kind: 'http_error', status: 400, retryAfterMs: undefined });
  });
});
