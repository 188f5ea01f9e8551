import { describe, expect, it } from '@jest/globals';
import { agedMeta, keepEnvelope, keptEnvelopeBytes } from '../../src/domain/kept-envelope.js';

const envelope = (data: unknown) => ({
  data,
  meta: {
    as_of: '2026-12-14T12:06:00.000Z',
    staleness_ms: 1,
    confidence: 0.9,
    has_more: true,
    next_cursor: 'c',
  },
  provenance: { sources: [{ venue: 'kraken', note: 'ünïcödé €' }], method: 'median', excluded: [] },
});
const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('utf8');

describe('an envelope kept serialised', () => {
  it('gives at any instant the bytes of the envelope serialised with that instant’s aged fields', () => {
    const fresh = envelope([{ ts: '2026-12-14T12:05:00Z', close: 101.5, text: 'a "quoted" \\ line\n' }]);
    const kept = keepEnvelope(fresh)!;
    for (const aged of [
      { staleness_ms: 0, confidence: 1 },
      { staleness_ms: 41_999.6, confidence: 0.8123456789 },
      { staleness_ms: -3, confidence: 0 },
    ])
      expect(text(keptEnvelopeBytes(kept, aged))).toBe(
        JSON.stringify({ ...fresh, meta: agedMeta(fresh.meta, aged) }),
      );
  });

  it('keeps the aged fields in their places and rounds the staleness as the envelope does', () => {
    expect(Object.keys(agedMeta(envelope([]).meta, { staleness_ms: 5, confidence: 0.5 }))).toEqual([
      'as_of',
      'staleness_ms',
      'confidence',
      'has_more',
      'next_cursor',
    ]);
    expect(agedMeta({}, { staleness_ms: 1234.5, confidence: 0.5 })).toEqual({
      staleness_ms: 1235,
      confidence: 0.5,
    });
  });

  it('is not split when a string of the data holds the mark the meta stands in for', () => {
    expect(keepEnvelope(envelope(['\u0000meta\u0000']))).toBeUndefined();
    expect(keepEnvelope(envelope(['meta']))).toBeDefined();
  });
});
