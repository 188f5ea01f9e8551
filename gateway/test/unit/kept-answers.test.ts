import { describe, expect, it } from '@jest/globals';
import { agedAt, agedBody, keptBody, type AnswerKeeping } from '@meridian/contracts';
import { agedAnswer, keptAnswerKey, KeptAnswers } from '../../src/domain/kept-answers.js';

const NOW = Date.parse('2026-12-14T12:06:20Z');
const LIMITS = { ttlMs: 1_000, maxBytes: 10_000, maxBodyBytes: 4_000 };

/** An answer as the data service sends it at `at`: its body with the aged fields at `at`, and its recipe. */
function answer(
  recipe: Partial<Omit<AnswerKeeping, 'at'>> = {},
  at = NOW,
  data = 'x',
): { fields: string[]; body: Buffer } {
  const keeping = {
    servable_until: NOW + 40_000,
    product: 'weather/observations',
    generation: 'r1.3',
    as_of: NOW - 42_000,
    confidence: { base: 0.5, max_age_ms: 3_600_000 },
    ...recipe,
  };
  const kept = keptBody(
    `{"data":"${data}","meta":{"as_of":"a","staleness_ms":`,
    ',"confidence":',
    '},"p":[]}',
  );
  const { body, at: places } = agedBody(kept, keeping, at);
  return {
    body: Buffer.from(body),
    fields: [
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      String(Buffer.byteLength(body)),
      'Date',
      'Mon, 14 Dec 2026 12:06:20 GMT',
      'x-request-id',
      'upstream-id',
      'X-Answer-Keeping',
      JSON.stringify({ ...keeping, at: places }),
    ],
  };
}

describe('the answer recipe (contracts)', () => {
  it('ages staleness and confidence as the data service computes them at that instant', () => {
    const keeping = {
      as_of: NOW - 42_000,
      confidence: { base: 0.75 * Math.exp(-0.04), max_age_ms: 900_000 },
    };
    for (const now of [NOW - 50_000, NOW, NOW + 17_321]) {
      const staleness = Math.max(0, now - keeping.as_of);
      expect(agedAt(keeping, now)).toEqual({
        staleness_ms: staleness,
        confidence: Math.round(keeping.confidence.base * Math.exp(-staleness / 900_000) * 1000) / 1000,
      });
    }
    expect(agedAt({ as_of: NOW, confidence: 0.875 }, NOW + 10_000).confidence).toBe(0.875);
  });

  it('writes the aged fields into the kept body and says where they sit, in bytes', () => {
    const kept = keptBody('{"d":"é€😀","meta":{"staleness_ms":', ',"confidence":', '}}');
    const { body, at } = agedBody(kept, { as_of: NOW - 1234.4, confidence: 0.5 }, NOW);
    expect(body).toBe('{"d":"é€😀","meta":{"staleness_ms":1234,"confidence":0.5}}');
    const bytes = Buffer.from(body);
    expect(bytes.subarray(at[0], at[1]).toString()).toBe('1234');
    expect(bytes.subarray(at[2], at[3]).toString()).toBe('0.5');
  });
});

describe('the data answers a gateway replica keeps', () => {
  it('keys an answer by the plan, path and query as sent', () => {
    expect(keptAnswerKey('pro', '/v1/data/a/b/c', 'entity=x')).not.toBe(
      keptAnswerKey('ultra', '/v1/data/a/b/c', 'entity=x'),
    );
    expect(keptAnswerKey('pro', '/v1/data/a/b/c', 'entity=x')).not.toBe(
      keptAnswerKey('pro', '/v1/data/a/b/c', 'entity=y'),
    );
    expect(keptAnswerKey('pro', '/v1/data/a/b/c', '')).not.toBe(
      keptAnswerKey('pro', '/v1/data/a/b/c', 'format=table'),
    );
  });

  it('serves a kept answer aged to the instant, byte for byte what the data service sends then', () => {
    const kept = new KeptAnswers(LIMITS);
    const first = answer();
    expect(kept.keep('k', 200, first.fields, first.body, NOW)).toBeDefined();
    for (const later of [NOW + 1, NOW + 537, NOW + 999]) {
      const hit = kept.get('k', later)!;
      expect(Buffer.from(agedAnswer(hit, later), 'latin1').equals(answer({}, later).body)).toBe(true);
    }
    // The fields that vary per answer or stay at the edge are not kept.
    expect(kept.get('k', NOW)!.fields).toEqual(['Content-Type', 'application/json; charset=utf-8']);
  });

  it("is served until the data service's servable_until or its own bound, whichever comes first", () => {
    const kept = new KeptAnswers(LIMITS);
    const soon = answer({ servable_until: NOW + 300 });
    kept.keep('soon', 200, soon.fields, soon.body, NOW);
    const late = answer();
    kept.keep('late', 200, late.fields, late.body, NOW);
    expect(kept.get('soon', NOW + 299)).toBeDefined();
    expect(kept.get('soon', NOW + 300)).toBeUndefined();
    expect(kept.get('late', NOW + 999)).toBeDefined();
    expect(kept.get('late', NOW + 1_000)).toBeUndefined();
    expect(kept.size).toBe(0);
  });

  it('drops the answers of a product once an answer names a newer generation of it', () => {
    const kept = new KeptAnswers(LIMITS);
    const old = answer();
    kept.keep('a', 200, old.fields, old.body, NOW);
    const otherProduct = answer({ product: 'fx/spot', generation: 'r1.9' });
    kept.keep('fx', 200, otherProduct.fields, otherProduct.body, NOW);
    const newer = answer({ generation: 'r1.4' });
    kept.keep('b', 200, newer.fields, newer.body, NOW + 5);
    expect(kept.get('a', NOW + 6)).toBeUndefined();
    expect(kept.get('b', NOW + 6)).toBeDefined();
    expect(kept.get('fx', NOW + 6)).toBeDefined();
  });

  it("forgets a product's answers when a data replica says its data changed, and keeps the others", () => {
    const kept = new KeptAnswers(LIMITS);
    const weather = answer();
    kept.keep('w', 200, weather.fields, weather.body, NOW);
    const fx = answer({ product: 'fx/spot', generation: 'r1.9' });
    kept.keep('fx', 200, fx.fields, fx.body, NOW);
    kept.forget(['weather/observations', 'macro/rates']);
    expect(kept.get('w', NOW + 1)).toBeUndefined();
    expect(kept.get('fx', NOW + 1)).toBeDefined();
    // The next answer forwarded names the product's generation again: kept and served from then on.
    kept.keep('w', 200, weather.fields, weather.body, NOW + 2);
    expect(kept.get('w', NOW + 3)).toBeDefined();
  });

  it('keeps nothing the data service did not declare keepable, or cannot place', () => {
    const kept = new KeptAnswers(LIMITS);
    const { fields, body } = answer();
    expect(kept.keep('refused', 404, fields, body, NOW)).toBeUndefined();
    expect(kept.keep('plain', 200, fields.slice(0, 8), body, NOW)).toBeUndefined();
    expect(
      kept.keep('garbled', 200, [...fields.slice(0, 9), '{"servable_until":1'], body, NOW),
    ).toBeUndefined();
    expect(kept.keep('short', 200, fields, body.subarray(0, 20), NOW)).toBeUndefined();
    expect(kept.keep('past', 200, answer({ servable_until: NOW }).fields, body, NOW)).toBeUndefined();
    expect(kept.size).toBe(0);
  });

  it('holds at most its bytes, the oldest kept going first, and no body above the largest', () => {
    const kept = new KeptAnswers({ ...LIMITS, maxBytes: 1_000 });
    const size = answer().body.length;
    const n = Math.floor(1_000 / size);
    for (let i = 0; i <= n; i++) {
      const a = answer();
      kept.keep(`k${i}`, 200, a.fields, a.body, NOW);
    }
    expect(kept.size).toBe(n);
    expect(kept.get('k0', NOW)).toBeUndefined();
    expect(kept.get(`k${n}`, NOW)).toBeDefined();
    const big = answer({}, NOW, 'y'.repeat(5_000));
    expect(kept.keep('big', 200, big.fields, big.body, NOW)).toBeUndefined();
  });
});
