import type { Catalog } from './types.js';

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
  'crypto/futures': 'recording',
};

/**
 * How replay makes a metric its recording does not hold as such (the perpetuals' recordings are trade
 * bars: no mark price, no funding rate), said in the metric's description under replay.
 */
const DERIVED: Readonly<Record<string, string>> = {
  'crypto/futures/last_price': "the recorded 1m bar's close",
  'crypto/futures/mark_price':
    "derived, not recorded: BTC = recorded spot BTC-USDT close of the minute + 5-minute mean premium of the perp's trade price over it (Binance's index + moving average of the premium); ETH, with no spot recorded = 5-minute mean trade price",
  'crypto/futures/basis':
    'from the derived mark and the recorded spot reference price; none for ETH-USD, whose spot was not recorded',
  'crypto/futures/funding':
    "an estimate, not a recorded rate: Binance's formula on the premium of the perp's recorded trade price over recorded spot in the current 8-hour interval; none for ETH-USD, whose spot was not recorded",
  'crypto/futures/taker_flow': 'from the recorded taker-buy volumes',
};

export function replayDerivationOf(category: string, product: string, metric: string): string | undefined {
  return DERIVED[`${category}/${product}/${metric}`];
}

export function replaySourceOf(category: string, product: string, metric: string): ReplaySource {
  return RECORDED[`${category}/${product}/${metric}`] ?? RECORDED[`${category}/${product}`] ?? 'sample';
}

const WORDS: Readonly<Record<ReplaySource, string>> = {
  recording: 'replay of a real recording, not a live print',
  sample: 'replay of a hand-written sample, not a live print',
  mixed: 'replay of a real recording and a hand-written sample, not a live print',
};

/** A metric's description in the catalogue of a replaying deployment: what it is played from, and how. */
export function replayDescription(description: string, source: ReplaySource, derivation?: string): string {
  return `${description} (${WORDS[source]}${derivation ? `; ${derivation}` : ''})`;
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
  const said = (words: string, list: string[]) => (list.length > 0 ? [`${words}: ${list.join(', ')}.`] : []);
  return [
    'This deployment serves replay (INGEST_MODE=replay), not live data: every answer is played from a recording shifted to the present and says so in meta.replay (kind, recorded_at, played_at).',
    ...said('Real recordings', named('recording', 'product')),
    ...said('A real recording and a hand-written sample together', named('mixed', 'metric')),
    ...said("Hand-written samples in the upstreams' formats", named('sample', 'product')),
  ].join(' ');
}
