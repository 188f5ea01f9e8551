import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { catalogFor, replaySourceOf, type ReplaySource } from '@meridian/contracts';

/** What each word of docs/replay.md's table means in contracts' terms. */
const KINDS: Record<string, ReplaySource> = {
  recorded: 'recording',
  'derived from a recording': 'recording',
  'derived from a recording and a sample': 'mixed',
  sampled: 'sample',
};

/** The rows of docs/replay.md's table "What replay plays, product by product": path -> kind. */
function readmeTable(): Map<string, string> {
  const readme = readFileSync(new URL('../../docs/replay.md', import.meta.url), 'utf8');
  const section = readme.split('## What replay plays, product by product')[1]?.split('\n## ')[0];
  if (!section) throw new Error('docs/replay.md has no table of what replay plays');
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\| `([a-z_0-9./]+)` \| ([^|]+?) \|/.exec(line);
    if (!cells) continue;
    if (rows.has(cells[1]!)) throw new Error(`the table names ${cells[1]} twice`);
    rows.set(cells[1]!, cells[2]!);
  }
  return rows;
}

describe("docs/replay.md's table of what replay plays", () => {
  const table = readmeTable();
  const live = catalogFor('replay')
    .allMetrics()
    .filter((h) => h.metric.status === 'live');

  it('names exactly the products of the catalogue, and only metrics it has', () => {
    const products = new Set(live.map((h) => `${h.product.category}/${h.product.product}`));
    const metrics = new Set(live.map((h) => `${h.product.category}/${h.product.product}/${h.metric.metric}`));
    const named = [...table.keys()];
    expect(new Set(named.filter((p) => p.split('/').length === 2))).toEqual(products);
    expect(named.filter((p) => p.split('/').length !== 2 && !metrics.has(p))).toEqual([]);
  });

  it('says of every live metric what replaySourceOf says, in words it defines', () => {
    const disagree: Record<string, string> = {};
    for (const { product, metric } of live) {
      const path = `${product.category}/${product.product}`;
      const words = table.get(`${path}/${metric.metric}`) ?? table.get(path) ?? 'absent';
      const said = KINDS[words];
      const code = replaySourceOf(product.category, product.product, metric.metric);
      if (said !== code)
        disagree[`${path}/${metric.metric}`] = `docs/replay.md: ${words}; replaySourceOf: ${code}`;
    }
    expect(disagree).toEqual({});
  });
});
