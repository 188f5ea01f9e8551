import type { IngestBatchInput, OptionMarkRow } from '@meridian/contracts';
import type { ReplayClock } from '../../../domain/replay-clock.js';
import { csvRecords } from '../csv.js';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** Deribit public/ticker for a perpetual (JSON-RPC envelope). */
interface DeribitTicker {
  result: {
    timestamp: number;
    instrument_name: string;
    mark_price: number;
    index_price: number;
    funding_8h: number;
  };
}

/** Deribit writes greeks as a Python dict string: {'vega': 0.94, 'gamma': 7e-05, ...}. */
export function parsePythonDict(text: string): Record<string, number | null> {
  // One pass over the text, not two: it runs for every row of the options chain at each replay.
  const json = text.replace(/'|\bNone\b/g, (c) => (c === "'" ? '"' : 'null'));
  return JSON.parse(json) as Record<string, number | null>;
}

/** Deribit's instrument name for an expiry: BTC-26JUN20-9000-C. */
export function deribitInstrument(underlying: string, expiry: string, strike: number, type: 'call' | 'put') {
  const d = new Date(expiry);
  const date = `${d.getUTCDate()}${MONTHS[d.getUTCMonth()]}${String(d.getUTCFullYear()).slice(2)}`;
  return `${underlying}-${date}-${strike}-${type === 'call' ? 'C' : 'P'}`;
}

const num = (v: string | undefined): number | null => (v === undefined || v === '' ? null : Number(v));

/**
 * Rows of a Deribit option-chain snapshot (get_book_summary/ticker columns, mark_price in BTC,
 * mark_iv in percent). mark_price_usd = mark_price x underlying_price (the expiry's forward);
 * mark_iv becomes a fraction. The clock shifts the snapshot; `expiryClock` (by default the same)
 * the expiries, and the instrument name is re-derived from the shifted expiry. An option whose
 * expiry is not after its mark has expired and is left out.
 */
export function parseDeribitOptions(
  text: string,
  clock: ReplayClock,
  expiryClock: ReplayClock = clock,
): IngestBatchInput {
  const all: OptionMarkRow[] = csvRecords(text).map((r) => {
    const type = r.option_type === 'put' ? 'put' : 'call';
    const strike = Number(r.strike);
    const underlying = (r.instrument_name ?? 'BTC').split('-')[0]!;
    const expiry = expiryClock(Number(r.expiration_timestamp));
    const underlyingPx = Number(r.underlying_price);
    const greeks = parsePythonDict(r.greeks ?? '{}');
    const iv = num(r.mark_iv);
    return {
      instrument: deribitInstrument(underlying, expiry, strike, type),
      ts: clock(Number(r.timestamp)),
      underlying,
      expiry,
      strike,
      option_type: type,
      underlying_px: underlyingPx,
      mark_price_usd: Number(r.mark_price) * underlyingPx,
      mark_iv: iv === null ? null : iv / 100,
      delta: greeks.delta ?? null,
      gamma: greeks.gamma ?? null,
      vega: greeks.vega ?? null,
      theta: greeks.theta ?? null,
      open_interest: num(r.open_interest) ?? 0,
    };
  });
  const rows = all.filter((r) => Date.parse(r.expiry) > Date.parse(r.ts));
  return { kind: 'option_marks', source: 'deribit', rows };
}

/**
 * A perpetual's ticker (the `result` of public/ticker) as its funding and mark batches, symbol BASE-USD:
 * Deribit's perpetuals are inverse, quoted in USD; funding_8h is the 8-hour rate.
 */
export function deribitPerpBatches(t: DeribitTicker['result'], clock: ReplayClock): IngestBatchInput[] {
  const base = t.instrument_name.split('-')[0]!;
  const symbol = `${base}-USD`;
  const ts = clock(t.timestamp);
  return [
    {
      kind: 'funding',
      source: 'deribit',
      symbol,
      rows: [{ ts, funding_rate: t.funding_8h, interval_hours: 8 }],
    },
    {
      kind: 'mark_prices',
      source: 'deribit',
      symbol,
      rows: [{ ts, mark_price: t.mark_price, index_price: t.index_price }],
    },
  ];
}

export interface DeribitOptionName {
  underlying: string;
  /** ISO time: Deribit options expire at 08:00 UTC of the named day. */
  expiry: string;
  strike: number;
  option_type: 'call' | 'put';
}

/**
 * BTC-27DEC24-100000-C: underlying, expiry day (1 or 2 digits, month, 2-digit year; 08:00 UTC), strike
 * and C/P. A strike may carry a `d` for its decimal point (XRP_USDC-27DEC24-2d5-C). Undefined for any
 * other shape (a perpetual, a future, a combo).
 */
export function parseDeribitOptionName(name: string): DeribitOptionName | undefined {
  const m = /^([A-Z0-9_]+)-(\d{1,2})([A-Z]{3})(\d{2})-(\d+(?:d\d+)?)-([CP])$/.exec(name);
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[3]!);
  const strike = Number(m[5]!.replace('d', '.'));
  if (month < 0 || !(strike > 0)) return undefined;
  const expiry = new Date(Date.UTC(2000 + Number(m[4]), month, Number(m[2]), 8));
  if (expiry.getUTCDate() !== Number(m[2])) return undefined;
  return {
    underlying: m[1]!,
    expiry: expiry.toISOString(),
    strike,
    option_type: m[6] === 'C' ? 'call' : 'put',
  };
}

/** One option of public/get_book_summary_by_currency (kind=option): prices in the underlying. */
export interface DeribitBookSummary {
  instrument_name: string;
  creation_timestamp: number;
  mark_price: number | null;
  /** Percent. */
  mark_iv: number | null;
  /** The forward of the option's expiry, USD. */
  underlying_price: number | null;
  open_interest: number | null;
}

export interface DeribitGreeks {
  delta: number | null;
  gamma: number | null;
  vega: number | null;
  theta: number | null;
}

/**
 * Option marks of a book summary: mark_price_usd = mark_price (in the underlying) x underlying_price
 * (the expiry's forward), mark_iv as a fraction, greeks from `greeksOf` (the tickers, null when not
 * fetched yet). An option without a mark or a forward (not yet priced) is left out.
 */
export function deribitSummaryMarks(
  summaries: DeribitBookSummary[],
  greeksOf: (instrument: string) => DeribitGreeks | undefined,
): OptionMarkRow[] {
  const rows: OptionMarkRow[] = [];
  for (const s of summaries) {
    const name = parseDeribitOptionName(s.instrument_name);
    const px = s.underlying_price;
    if (!name || s.mark_price === null || !(px !== null && px > 0)) continue;
    const g = greeksOf(s.instrument_name);
    rows.push({
      instrument: s.instrument_name,
      ts: new Date(s.creation_timestamp).toISOString(),
      ...name,
      underlying_px: px,
      mark_price_usd: s.mark_price * px,
      mark_iv: s.mark_iv === null ? null : s.mark_iv / 100,
      delta: g?.delta ?? null,
      gamma: g?.gamma ?? null,
      vega: g?.vega ?? null,
      theta: g?.theta ?? null,
      open_interest: s.open_interest ?? 0,
    });
  }
  return rows;
}
