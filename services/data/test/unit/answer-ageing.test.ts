import { describe, expect, it } from '@jest/globals';
import { agedAt } from '@meridian/contracts';
import { ageingConfidence, agedFields, servableUntil } from '../../src/domain/answer-ageing.js';
import { kindsRead, productsReading } from '../../src/domain/answer-invalidation.js';
import { confidence } from '../../src/domain/confidence.js';

const MINUTE = 60_000;
const at = Date.parse('2026-12-14T12:06:20Z');

describe('a kept answer at a later instant', () => {
  const inputs = { venues: 3, dispersion: 0.0004, max_age_ms: 15 * MINUTE };

  it('ages as its resolver computes it: staleness from asOf, the one confidence formula at that age', () => {
    const asOf = at - 42_000;
    for (const now of [asOf - 5, asOf, at, at + 17_321])
      expect(agedFields({ asOf, confidence: inputs }, now)).toEqual({
        staleness_ms: Math.max(0, now - asOf),
        confidence: confidence({ ...inputs, staleness_ms: Math.max(0, now - asOf) }),
      });
  });

  it('hands a holder (the gateway) a recipe that ages to the same confidence, whatever the inputs', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646;
    for (let i = 0; i < 2_000; i++) {
      const input = {
        venues: Math.floor(random() * 6),
        dispersion: random() < 0.3 ? 0 : random() * 0.02,
        max_age_ms: Math.round(random() * 7_200_000),
      };
      const staleness = Math.round(random() * 3 * input.max_age_ms);
      const recipe = {
        as_of: at - staleness,
        confidence: ageingConfidence({ asOf: at - staleness, confidence: input }),
      };
      expect(agedAt(recipe, at).confidence).toBe(confidence({ ...input, staleness_ms: staleness }));
    }
  });

  it('keeps a confidence that does not age', () => {
    expect(agedFields({ asOf: at - 1000, confidence: 0.875 }, at + 50_000)).toEqual({
      staleness_ms: 51_000,
      confidence: 0.875,
    });
  });

  it('is served until the first of the next minute boundary, the time to live and its own limit', () => {
    const ageing = { asOf: at - 1000, confidence: inputs };
    expect(servableUntil(at, ageing, 1000)).toBe(at + 1000);
    expect(servableUntil(at, ageing, 60_000)).toBe(Date.parse('2026-12-14T12:07:00Z'));
    expect(servableUntil(at - 20_001, ageing, 60_000)).toBe(Date.parse('2026-12-14T12:06:00Z'));
    // Computed on the boundary: a 24 h window drops its oldest bar the next millisecond.
    expect(servableUntil(at - 20_000, ageing, 60_000)).toBe(Date.parse('2026-12-14T12:06:00Z') + 1);
    expect(servableUntil(at, { ...ageing, validUntil: at + 10 }, 1000)).toBe(at + 10);
    expect(servableUntil(at, { ...ageing, validUntil: at }, 1000)).toBe(at);
  });
});

describe('what invalidates a product', () => {
  it('spot by bars and prints, futures and options by their rows and what they rest on, the feeds by observations', () => {
    expect(kindsRead('crypto', 'spot')).toEqual(['candles', 'trades']);
    expect(kindsRead('crypto', 'futures')).toEqual(['funding', 'mark_prices', 'candles', 'observations']);
    expect(kindsRead('crypto', 'options')).toEqual(['option_marks', 'observations']);
    expect(kindsRead('weather', 'observations')).toEqual(['observations']);
  });

  it('names the products a changed kind invalidates, as the notice to other replicas carries them', () => {
    const products = [
      { category: 'crypto', product: 'spot' },
      { category: 'crypto', product: 'futures' },
      { category: 'crypto', product: 'options' },
      { category: 'weather', product: 'observations' },
    ];
    expect(productsReading(products, 'candles')).toEqual(['crypto/spot', 'crypto/futures']);
    expect(productsReading(products, 'option_marks')).toEqual(['crypto/options']);
    expect(productsReading(products, 'observations')).toEqual([
      'crypto/futures',
      'crypto/options',
      'weather/observations',
    ]);
  });
});
