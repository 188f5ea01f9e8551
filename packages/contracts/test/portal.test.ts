import { describe, expect, it } from '@jest/globals';
import { billingHistoryQuerySchema, creditsQuerySchema, serviceRequestSchema } from '../src/index.js';

describe('portal inputs', () => {
  it('reads the credits and history pages from query strings with the spec defaults and bounds', () => {
    expect(creditsQuerySchema.parse({})).toEqual({ limit: 25 });
    expect(creditsQuerySchema.parse({ limit: '100', before: '7' })).toEqual({ limit: 100, before: 7 });
    for (const bad of [{ limit: '0' }, { limit: '101' }, { before: '0' }, { limit: '2.5' }])
      expect(creditsQuerySchema.safeParse(bad).success).toBe(false);
    expect(billingHistoryQuerySchema.parse({})).toEqual({ limit: 25, max_response_tokens: 4000 });
    for (const bad of [{ max_response_tokens: '499' }, { max_response_tokens: '16001' }, { cursor: '' }])
      expect(billingHistoryQuerySchema.safeParse(bad).success).toBe(false);
  });

  it('takes a service request of a known kind, its domain bounded (the service normalises and checks it)', () => {
    expect(serviceRequestSchema.parse({ kind: 'pentest', domain: 'shop.example.com' })).toEqual({
      kind: 'pentest',
      domain: 'shop.example.com',
    });
    expect(serviceRequestSchema.safeParse({ kind: 'consultancy', domain: '' }).success).toBe(true);
    expect(serviceRequestSchema.safeParse({ kind: 'consultancy', detail: 'x'.repeat(4001) }).success).toBe(
      false,
    );
    expect(serviceRequestSchema.safeParse({ kind: 'pentest', domain: 'a'.repeat(301) }).success).toBe(false);
    expect(serviceRequestSchema.safeParse({ kind: 'scan_now' }).success).toBe(false);
  });
});
