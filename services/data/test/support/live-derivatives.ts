import { findMetric, LIVE_DERIVATIVES, type CatalogHit } from '@meridian/contracts';
import type { UpstreamPeer } from '@meridian/test-peers';
import { deribitConnector } from '../../src/adapters/connectors/derivatives/deribit.js';
import { okxFuturesConnector } from '../../src/adapters/connectors/derivatives/okx-futures.js';
import type { LiveIngestSettings } from '../../src/jobs/live-ingest.js';
import { liveSettings } from './live.js';
import { recording } from './recordings.js';

/**
 * The derivatives venues (Deribit, Binance, Bybit and OKX futures) as the live-derivatives*.test.ts
 * files play them on an upstream peer: the hand-written samples, the connectors unpaced, and the
 * catalogue's live entries.
 */

/** The hand-written samples' poll instant (recordings/live/README.md): 2025-11-25 08:00 UTC. */
export const T = Date.UTC(2025, 10, 25, 8);
export const API = '/api/v2/public';
/** A sample moved to another instant: every epoch-ms time of the sample (T + up to 10 s) shifted alike. */
export const movedTo = (text: string, at: number) =>
  text.replace(/\b17640576\d{5}\b/g, (t) => String(Number(t) - T + at));
export const rpc = (result: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', result, usIn: 1, usOut: 2, usDiff: 1, testnet: false });

/** Deribit in tests: 6 option tickers a poll, unpaced, so that a rotation shows in two polls. */
export const deribit = deribitConnector({ tickersPerPoll: 6, tickerConcurrency: 2, tickerSpacingMs: 0 });
/** OKX in tests: its 19 funding requests unpaced. */
export const okx = okxFuturesConnector({ spacingMs: 0 });
/** Every option of the two samples (16), in the order the rotation reads them. */
export const OPTIONS = [
  ...['85000', '90000'].flatMap((k) => [`BTC-26DEC25-${k}-C`, `BTC-26DEC25-${k}-P`]),
  ...['19DEC25', '30JAN26'].flatMap((d) =>
    ['2800', '3000', '3200'].flatMap((k) => [`ETH-${d}-${k}-C`, `ETH-${d}-${k}-P`]),
  ),
];

/** What the catalogue's mode mechanism lists in live mode: the product's LIVE_DERIVATIVES entry. */
export function liveHit(category: string, product: 'futures' | 'options', metric: string): CatalogHit {
  const hit = findMetric(category, product, metric)!;
  return { ...hit, product: { ...hit.product, ...LIVE_DERIVATIVES[product] } };
}

/** Settings pointing every derivatives connector at the peer, with a short timeout. */
export const derivativesSettings = (peer: UpstreamPeer, over: Partial<LiveIngestSettings> = {}) =>
  liveSettings({
    urls: { deribit: peer.url, binance_futures: peer.url, bybit_futures: peer.url, okx_futures: peer.url },
    timeoutMs: 1000,
    ...over,
  });

/** Serves the Deribit samples, each of the 16 option tickers but 4 answering Deribit's invalid-params error. */
export async function serveDeribit(peer: UpstreamPeer, over: { summary?: string } = {}) {
  for (const u of ['BTC', 'ETH']) {
    peer.answer(`${API}/get_book_summary_by_currency?currency=${u}&kind=option`, {
      body: over.summary ?? recording(`live/deribit/book_summary_${u}_option_2025-11-25.json`),
    });
    peer.answer(`${API}/get_volatility_index_data?currency=${u}`, {
      body: recording(`live/deribit/volatility_index_${u}_2025-11-25.json`),
    });
    peer.answer(`${API}/ticker?instrument_name=${u}-PERPETUAL`, {
      body: recording(`live/deribit/ticker_${u}-PERPETUAL_2025-11-25.json`),
    });
  }
  peer.answer(`${API}/ticker`, { status: 400, body: recording('live/deribit/error_invalid_params.json') });
  for (const name of [
    'ETH-19DEC25-3000-C',
    'ETH-19DEC25-3000-P',
    'ETH-30JAN26-3200-C',
    'BTC-26DEC25-90000-C',
  ])
    peer.answer(`${API}/ticker?instrument_name=${name}`, {
      body: recording(`live/deribit/ticker_${name}_2025-11-25.json`),
    });
}

export const OKX_MARKS = '/api/v5/public/mark-price';
export const OKX_FUNDING = '/api/v5/public/funding-rate';
/** The samples: marks of every swap, funding of BTC, ETH and SOL; the other bases answer 51001. */
export async function serveOkx(peer: UpstreamPeer) {
  peer.answer(OKX_MARKS, { body: recording('live/okx_futures/mark_price_swap_2025-11-25.json') });
  peer.answer(OKX_FUNDING, { body: recording('live/okx_futures/error_no_such_instrument.json') });
  for (const base of ['BTC', 'ETH', 'SOL'])
    peer.answer(`${OKX_FUNDING}?instId=${base}-USDT-SWAP`, {
      body: recording(`live/okx_futures/funding_rate_${base}-USDT-SWAP_2025-11-25.json`),
    });
}
