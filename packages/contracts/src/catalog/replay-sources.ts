import type { Catalog } from './modes.js';

/** What INGEST_MODE=replay plays a metric from: a real recording, a hand-written sample, or both. */
export type ReplaySource = 'recording' | 'sample' | 'mixed';

/**
 * The products (or single metrics) replay plays from real recordings, or in part; every other live
 * metric plays a hand-written sample in its upstream's format (services/data/recordings/README.md).
 * The data service's answers say the same in meta.replay.kind, and its tests hold them to this.
 */
const RECORDED: Readonly<Record<string, ReplaySource>> = {
  'crypto/spot': 'recording',
  'crypto/options': 'recording',
  // The perpetuals' sample priced against the recorded spot.
  'crypto/futures/basis': 'mixed',
};

export function replaySourceOf(category: string, product: string, metric: string): ReplaySource {
  return RECORDED[`${category}/${product}/${metric}`] ?? RECORDED[`${category}/${product}`] ?? 'sample';
}

const WORDS: Readonly<Record<ReplaySource, string>> = {
  recording: 'replay of a real recording, not a live print',
  sample: 'replay of a hand-written sample, not a live print',
  mixed: 'replay of a real recording and a hand-written sample, not a live print',
};

/** A metric's description in the catalogue of a replaying deployment: what it is played from. */
export function replayDescription(description: string, source: ReplaySource): string {
  return `${description} (${WORDS[source]})`;
}

/**
 * What every document of a replaying deployment says before anyone pays: that it replays, and which
 * products are real recordings and which are samples. Undefined in another mode.
 */
export function replayStatement(catalog: Catalog): string | undefined {
  if (catalog.mode !== 'replay') return undefined;
  const live = catalog.allMetrics().filter((h) => h.metric.status === 'live');
  const named = (source: ReplaySource, level: 'product' | 'metric') => [
    ...new Set(
      live
        .filter((h) => replaySourceOf(h.product.category, h.product.product, h.metric.metric) === source)
        .map(({ product: p, metric: m }) =>
          level === 'product' ? `${p.category}/${p.product}` : `${p.category}/${p.product}/${m.metric}`,
        ),
    ),
  ];
  return [
    'This deployment serves replay (INGEST_MODE=replay), not live data: every answer is played from a recording shifted to the present and says so in meta.replay (kind, recorded_at, played_at).',
    `Real recordings: ${named('recording', 'product').join(', ')}.`,
    `A real recording and a hand-written sample together: ${named('mixed', 'metric').join(', ')}.`,
    `Hand-written samples in the upstreams' formats: ${named('sample', 'product').join(', ')}.`,
  ].join(' ');
}
