import { LIVE_OPTION_UNDERLYINGS, type IngestBatchInput } from '@meridian/contracts';
import {
  deribitPerpBatches,
  deribitSummaryMarks,
  type DeribitBookSummary,
  type DeribitGreeks,
} from '../../parsers/derivatives/deribit.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import type { ConnectorDefinition } from '../connector.js';
import { paced } from '../paced.js';
import { UpstreamError, type UpstreamHttp } from '../upstream-http.js';
import { venueRefusal } from '../venue-refusals.js';

/** Deribit's rate limit refills in about a second; wait a few before asking again. */
const RATE_LIMIT_WAIT_MS = 5_000;

/**
 * The `result` of a Deribit JSON-RPC answer (`{"jsonrpc":"2.0","result":...}`). An `error` member is
 * the upstream's refusal: code 10028 (too_many_requests) is a rate limit under any HTTP status (200,
 * 400 or 429), any other code an error; a body of neither shape is malformed.
 */
export async function deribitResult(http: UpstreamHttp, url: string): Promise<unknown> {
  let body: unknown;
  try {
    body = await http.json(url);
  } catch (err) {
    if (!(err instanceof UpstreamError) || err.body === undefined) throw err;
    body = jsonOrUndefined(err.body);
    if (!rpcError(body)) throw err;
  }
  const path = new URL(url).pathname;
  if (rpcError(body)) {
    const { code, message } = body.error;
    throw venueRefusal('deribit', String(code), message, { where: path, waitMs: RATE_LIMIT_WAIT_MS });
  }
  if (typeof body !== 'object' || body === null || (body as { jsonrpc?: unknown }).jsonrpc !== '2.0')
    throw new UpstreamError('malformed', `${path}: not a JSON-RPC 2.0 answer`);
  if (!('result' in body)) throw new UpstreamError('malformed', `${path}: JSON-RPC answer without result`);
  return body.result;
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function rpcError(body: unknown): body is { error: { code: number; message: string } } {
  const error = (body as { error?: { code?: unknown } } | null | undefined)?.error;
  return typeof error === 'object' && error !== null && typeof error.code === 'number';
}

function arrayOf<T>(value: unknown, what: string): T[] {
  if (!Array.isArray(value)) throw new UpstreamError('malformed', `${what}: result is not a list`);
  return value as T[];
}

interface TickerGreeks {
  instrument_name: string;
  greeks?: Partial<DeribitGreeks>;
}

/** The perpetuals whose funding and mark Deribit gives crypto/futures (inverse, in USD). */
const PERPETUALS = LIVE_OPTION_UNDERLYINGS.map((u) => `${u}-PERPETUAL`);

export interface DeribitSettings {
  /** Option tickers (for greeks) read per poll, in rotation over the listed instruments. */
  tickersPerPoll: number;
  /** Option tickers in flight at once. */
  tickerConcurrency: number;
  /** Least time between the starts of two ticker requests. */
  tickerSpacingMs: number;
}

/**
 * Deribit's public API allows about 20 non-matching-engine requests a second (credits: 500 a request,
 * 10 000 refilled a second, 50 000 at most), per IP without a key. Each poll asks 6 + 100 requests, at
 * most 10 a second and 4 at once: half the sustained limit, never near the burst. With about 1 500
 * listed options (BTC and ETH), every instrument's greeks are read again about every 15 polls.
 */
export const DERIBIT_DEFAULTS: DeribitSettings = {
  tickersPerPoll: 100,
  tickerConcurrency: 4,
  tickerSpacingMs: 100,
};

/**
 * Deribit (no key): per option underlying (BTC, ETH) the book summary of every option (marks, IV, open
 * interest, forward), the DVOL volatility index (the last hour of 1-minute candles, stored as
 * observations `dvol` keyed by the underlying), the perpetual's ticker (funding_8h, mark, index) and,
 * for greeks, a rotating slice of the options' own tickers: a mark carries the greeks of its
 * instrument's last ticker read (null until the first), kept between polls.
 */
export function deribitConnector(settings: DeribitSettings = DERIBIT_DEFAULTS): ConnectorDefinition {
  return {
    name: 'deribit',
    products: ['crypto/options', 'crypto/futures'],
    url: 'https://www.deribit.com',
    cadenceMs: 60_000,
    note: 'public market data API, no key; greeks from per-instrument tickers read in rotation (100 a poll, 10/s)',
    open: (url) => {
      const api = `${url}/api/v2/public`;
      const greeks = new Map<string, DeribitGreeks>();
      let cursor = 0;
      const readGreeks = async (http: UpstreamHttp, listed: string[]) => {
        const current = new Set(listed);
        for (const name of greeks.keys()) if (!current.has(name)) greeks.delete(name);
        const count = Math.min(settings.tickersPerPoll, listed.length);
        const slice = Array.from({ length: count }, (_, i) => listed[(cursor + i) % listed.length]!);
        cursor = listed.length === 0 ? 0 : (cursor + count) % listed.length;
        const spacing = { concurrency: settings.tickerConcurrency, spacingMs: settings.tickerSpacingMs };
        await paced(slice, spacing, async (name) => {
          let ticker: TickerGreeks;
          try {
            ticker = (await deribitResult(http, `${api}/ticker?instrument_name=${name}`)) as TickerGreeks;
          } catch (err) {
            // An option that expired since the summary answers an error: it keeps no greeks. A rate
            // limit or an unreachable upstream fails the poll.
            if (err instanceof UpstreamError && err.kind === 'http_error') return;
            throw err;
          }
          const g = ticker.greeks;
          if (!g) return;
          greeks.set(name, {
            delta: g.delta ?? null,
            gamma: g.gamma ?? null,
            vega: g.vega ?? null,
            theta: g.theta ?? null,
          });
        });
      };
      return async (http, now) => {
        const summaries: DeribitBookSummary[] = [];
        const batches: IngestBatchInput[] = [];
        for (const currency of LIVE_OPTION_UNDERLYINGS) {
          const result = await deribitResult(
            http,
            `${api}/get_book_summary_by_currency?currency=${currency}&kind=option`,
          );
          summaries.push(...arrayOf<DeribitBookSummary>(result, `${currency} book summary`));
          const dvol = (await deribitResult(
            http,
            `${api}/get_volatility_index_data?currency=${currency}&start_timestamp=${now.getTime() - 3_600_000}&end_timestamp=${now.getTime()}&resolution=60`,
          )) as { data?: unknown };
          batches.push(dvolBatch(currency, arrayOf<number[]>(dvol?.data, `${currency} DVOL`)));
        }
        for (const perp of PERPETUALS) {
          const ticker = await deribitResult(http, `${api}/ticker?instrument_name=${perp}`);
          batches.push(
            ...deribitPerpBatches(ticker as Parameters<typeof deribitPerpBatches>[0], recordedTime),
          );
        }
        await readGreeks(http, summaries.map((s) => s.instrument_name).sort());
        const rows = deribitSummaryMarks(summaries, (name) => greeks.get(name));
        return [{ kind: 'option_marks', source: 'deribit', rows }, ...batches];
      };
    },
  };
}

/** DVOL candles [ts, open, high, low, close] (percent): the close is the index at the minute's end. */
function dvolBatch(currency: string, candles: number[][]): IngestBatchInput {
  return {
    kind: 'observations',
    source: 'deribit',
    rows: candles.map(([ts, open, high, low, close]) => ({
      key: currency,
      metric: 'dvol',
      ts: new Date(ts!).toISOString(),
      value: close ?? null,
      payload: { open, high, low, resolution_s: 60 },
    })),
  };
}

export const deribit = deribitConnector();
