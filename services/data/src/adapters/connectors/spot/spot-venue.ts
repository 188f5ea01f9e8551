import type { CandleRow, IngestBatchInput, TradeRow } from '@meridian/contracts';
import { compareTradeIds, secondBars } from '../../../domain/spot/second-bars.js';
import type { ConnectorDefinition } from '../connector.js';
import type { UpstreamHttp } from '../upstream-http.js';

/** A GET of one JSON answer, paced to the venue's rate limit (see `gapMs`). */
export type GetJson = (url: string) => Promise<unknown>;

/**
 * One answer of a venue's trades endpoint, parsed; `next` is the venue's own cursor for the next request
 * (undefined: ask for the newest trades, as at the first poll).
 */
export interface TradePage {
  rows: TradeRow[];
  next?: string | undefined;
  /**
   * Set by a venue whose cursor asks for what follows it (Kraken's `since`): true when the answer holds
   * everything since the cursor. Unset: the answer is complete when it reaches back to a trade already seen.
   */
  complete?: boolean;
}

/**
 * What a spot venue's connector knows of its venue: the symbol map and the parsers of its exact
 * answers. `spotConnector` makes a ConnectorDefinition of it, so every venue polls, paces, keeps its
 * cursors and builds 1s bars the same way.
 */
export interface SpotVenue {
  /** The connector's name (`binance_spot`): metrics label, `/ready` key, `INGEST_URL_<NAME>`. */
  name: string;
  /** The `source` of its batches and of `source=` queries (`binance`): the venue as the catalogue names it. */
  venue: string;
  url: string;
  cadenceMs: number;
  /** Least time between two requests, from the venue's documented rate limit (docs/live-connectors.md). */
  gapMs: number;
  note: string;
  /** Our BASE-QUOTE -> the venue's symbol, for every market it lists among ours. */
  markets: Readonly<Record<string, string>>;
  /** 1m candles of a market; `first`: the connector's first poll of it, when it asks for more history. */
  candles1m(get: GetJson, url: string, symbol: string, first: boolean): Promise<CandleRow[]>;
  /** The venue's own 1s candles; absent: 1s bars are built from its trades (domain/spot/second-bars.ts). */
  candles1s?(get: GetJson, url: string, symbol: string, first: boolean): Promise<CandleRow[]>;
  /** Recent trades, taker side normalised; `cursor` is the `next` of the previous page (undefined at first). */
  trades(get: GetJson, url: string, symbol: string, cursor: string | undefined): Promise<TradePage>;
}

/** What the connector keeps of one market between polls. */
interface MarketState {
  polled: boolean;
  cursor: string | undefined;
  /** The newest trade id seen. */
  lastId: string | undefined;
  /** The trades of the newest second, whose 1s bar waits for the rest of it. */
  pending: TradeRow[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A getter that starts each request at least `gapMs` after the previous one started. */
function paced(http: UpstreamHttp, gapMs: number): GetJson {
  let last = 0;
  return async (url) => {
    const wait = last + gapMs - Date.now();
    if (wait > 0) await sleep(wait);
    last = Date.now();
    return http.json(url);
  };
}

/**
 * The trades of a page newer than the last seen, and whether trades between may be missing: at the
 * first poll, or when the page neither reaches back to a trade already seen nor says it is complete.
 */
function newTrades(page: TradePage, lastId: string | undefined): { fresh: TradeRow[]; gap: boolean } {
  if (lastId === undefined) return { fresh: page.rows, gap: true };
  // No trade at all since the venue's window began: nothing new, nothing missed.
  if (page.rows.length === 0) return { fresh: [], gap: false };
  const fresh = page.rows.filter((t) => compareTradeIds(t.trade_id, lastId) > 0);
  const reachesBack = fresh.length < page.rows.length;
  return { fresh, gap: !(page.complete ?? reachesBack) };
}

function newestId(rows: readonly TradeRow[], lastId: string | undefined): string | undefined {
  return rows.reduce<string | undefined>(
    (max, t) => (max === undefined || compareTradeIds(t.trade_id, max) > 0 ? t.trade_id : max),
    lastId,
  );
}

/**
 * A spot venue's connector: each poll reads, market after market at the venue's pace, the 1m candles,
 * the 1s candles (or the trades' 1s bars) and the recent trades, and returns them as one poll's
 * batches (written all or none). Every trade of an answer is sent (ingestion is idempotent, so an
 * overlap with the last poll changes nothing); the cursors only shape the next request and the 1s bars.
 */
export function spotConnector(venue: SpotVenue, options: { gapMs?: number } = {}): ConnectorDefinition {
  const gapMs = options.gapMs ?? venue.gapMs;
  return {
    name: venue.name,
    products: ['crypto/spot'],
    url: venue.url,
    cadenceMs: venue.cadenceMs,
    note: venue.note,
    open: (url) => {
      const state = new Map<string, MarketState>();
      return async (http) => {
        const get = paced(http, gapMs);
        const batches: IngestBatchInput[] = [];
        const next = new Map<string, MarketState>();
        for (const [symbol, id] of Object.entries(venue.markets)) {
          const before = state.get(symbol) ?? {
            polled: false,
            cursor: undefined,
            lastId: undefined,
            pending: [],
          };
          const first = !before.polled;
          const source = venue.venue;
          const candles = await venue.candles1m(get, url, id, first);
          batches.push({ kind: 'candles', source, symbol, interval: '1m', rows: candles });
          const page = await venue.trades(get, url, id, before.cursor);
          batches.push({ kind: 'trades', source, symbol, rows: page.rows });
          const { fresh, gap } = newTrades(page, before.lastId);
          let pending: TradeRow[] = [];
          if (venue.candles1s) {
            const seconds = await venue.candles1s(get, url, id, first);
            batches.push({ kind: 'candles', source, symbol, interval: '1s', rows: seconds });
          } else {
            const built = secondBars({ trades: gap ? fresh : [...before.pending, ...fresh], gapBefore: gap });
            batches.push({ kind: 'candles', source, symbol, interval: '1s', rows: built.bars });
            pending = built.pending;
          }
          next.set(symbol, {
            polled: true,
            cursor: page.next,
            lastId: newestId(fresh, before.lastId),
            pending,
          });
        }
        // Only a poll read to the end moves the cursors: a failed one is asked again from where it was.
        for (const [symbol, s] of next) state.set(symbol, s);
        return batches;
      };
    },
  };
}

/** A number the venue writes as a string or a number; anything else is not its format. */
export function num(v: unknown, what: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new Error(`${what} is not a number: ${JSON.stringify(v)?.slice(0, 40)}`);
  return n;
}

export function isoOfMs(ms: number): string {
  return new Date(ms).toISOString();
}

export function arrayOf(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${what} is not a list`);
  return v;
}

export function objectOf(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${what} is not an object`);
  return v as Record<string, unknown>;
}

/** Candles oldest first, whatever order the venue answers in (several answer newest first). */
/**
 * A candle of the venues that answer one as an array starting `[start ms, open, high, low, close,
 * volume, …]` (Binance, Bybit, OKX); whatever follows is the venue's own.
 */
export function candleOfArray(row: unknown, what: string): CandleRow & { rest: unknown[] } {
  const [start, open, high, low, close, volume, ...rest] = arrayOf(row, what);
  return {
    ts: isoOfMs(num(start, `${what} start time`)),
    open: num(open, 'open'),
    high: num(high, 'high'),
    low: num(low, 'low'),
    close: num(close, 'close'),
    volume: num(volume, 'volume'),
    rest,
  };
}

/** The symbol map of a venue that names a market by its legs run together (`BTC-USDT` → `BTCUSDT`). */
export function concatenatedSymbols(markets: readonly string[]): Readonly<Record<string, string>> {
  return Object.fromEntries(markets.map((m) => [m, m.replace('-', '')]));
}

export function oldestFirst(rows: CandleRow[]): CandleRow[] {
  return [...rows].sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts));
}

/** A trade of size 0 or price 0 (some venues print them for cancelled fills) is no trade. */
export function realTrades(rows: TradeRow[]): TradeRow[] {
  return rows.filter((t) => t.price > 0 && t.size > 0);
}
