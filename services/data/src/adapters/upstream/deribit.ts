import type { IngestBatchInput, OptionMarkRow } from '@meridian/contracts';
import type { ReplayClock } from '../../domain/replay-clock.js';
import { csvRecords } from './csv.js';

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
  const json = text.replace(/'/g, '"').replace(/\bNone\b/g, 'null');
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
 * mark_iv becomes a fraction. The clock shifts the snapshot and the expiries alike, so time to
 * expiry is kept; the instrument name is re-derived from the shifted expiry.
 */
export function parseDeribitOptions(text: string, clock: ReplayClock): IngestBatchInput {
  const rows: OptionMarkRow[] = csvRecords(text).map((r) => {
    const type = r.option_type === 'put' ? 'put' : 'call';
    const strike = Number(r.strike);
    const underlying = (r.instrument_name ?? 'BTC').split('-')[0]!;
    const expiry = clock(Number(r.expiration_timestamp));
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
  return { kind: 'option_marks', source: 'deribit', rows };
}

/** Deribit's BTC-PERPETUAL is inverse, quoted in USD; funding_8h is the 8-hour rate. */
export function parseDeribitTicker(text: string, clock: ReplayClock): IngestBatchInput[] {
  const { result: t } = JSON.parse(text) as DeribitTicker;
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
