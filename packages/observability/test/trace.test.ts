import { describe, expect, it } from '@jest/globals';
import { formatTraceparent, traceFromHeaders } from '../src/index.js';

describe('trace context', () => {
  it('starts new traces with distinct well-formed ids, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const trace = traceFromHeaders({});
      expect(formatTraceparent(trace)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(trace.requestId).toMatch(/^[0-9a-f-]{36}$/);
      seen.add(trace.traceId).add(trace.spanId);
    }
    expect(seen.size).toBe(2000);
  });

  it('continues a valid traceparent with a new span, and refuses a malformed or all-zero one', () => {
    const traceId = 'ab'.repeat(16);
    const continued = traceFromHeaders({
      traceparent: `00-${traceId}-${'cd'.repeat(8)}-01`,
      requestId: 'r-7',
    });
    expect(continued).toMatchObject({ traceId, requestId: 'r-7', flags: '01' });
    expect(continued.spanId).not.toBe('cd'.repeat(8));
    expect(traceFromHeaders({ traceparent: `00-${'0'.repeat(32)}-${'cd'.repeat(8)}-01` }).traceId).not.toBe(
      '0'.repeat(32),
    );
    expect(traceFromHeaders({ traceparent: 'garbage', requestId: 'bad id with spaces' }).requestId).not.toBe(
      'bad id with spaces',
    );
  });
});
