import { describe, expect, it } from '@jest/globals';
import { CATALOG } from '@meridian/contracts';
import { CONNECTORS } from '../../src/adapters/connectors/index.js';

describe('the registered live connectors', () => {
  it('have unique snake_case names, feed catalogue products, and reach their upstreams over https where they can', () => {
    const names = CONNECTORS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const products = new Set(CATALOG.map((p) => `${p.category}/${p.product}`));
    for (const c of CONNECTORS) {
      expect(c.name).toMatch(/^[a-z][a-z0-9_]*$/);
      for (const p of c.products) expect([c.name, products.has(p)]).toEqual([c.name, true]);
      // open-notify answers on plain HTTP only (no TLS endpoint exists).
      expect(new URL(c.url).protocol).toBe(c.name === 'open_notify' ? 'http:' : 'https:');
      expect(c.cadenceMs).toBeGreaterThanOrEqual(1000);
    }
  });

  it('say why a source needs the operator to opt in', () => {
    for (const c of CONNECTORS.filter((d) => d.optIn)) expect(c.optIn!.length).toBeGreaterThan(20);
  });
});
