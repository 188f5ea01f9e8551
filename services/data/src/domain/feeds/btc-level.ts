import type { IngestBatchInput, OptionMarkRow } from '@meridian/contracts';

/**
 * One BTC price level across replayed recordings made years apart (services/data/docs/decisions.md, "One BTC price level in the replay"):
 * the options chain (2020, underlying near 9k) and the network statistics (2024-11, near 90k) are
 * scaled to the replayed spot price at the instant they are played at, so that underlying = spot and
 * market cap = price x supply hold in one answer and one demo (the perpetuals are recorded in the spot
 * recording's week and need none). A scaling by f keeps every ratio of the recording: moneyness,
 * implied volatility, delta, and for a perp's marks the basis and the funding rate.
 */

/** A strike scaled to whole dollars, as a venue lists them; the instrument name follows it. */
function scaledOption(row: OptionMarkRow, f: number): OptionMarkRow {
  const strike = Math.round(row.strike * f);
  const parts = row.instrument.split('-');
  if (parts.length === 4) parts[2] = String(strike);
  const times = (v: number | null, k: number) => (v === null ? v : v * k);
  return {
    ...row,
    instrument: parts.join('-'),
    strike,
    underlying_px: row.underlying_px * f,
    mark_price_usd: row.mark_price_usd * f,
    // Black-Scholes is homogeneous in (spot, strike): delta and IV stay, gamma goes as 1/f, vega and theta as f.
    gamma: times(row.gamma, 1 / f),
    vega: times(row.vega, f),
    theta: times(row.theta, f),
  };
}

/** A price in USD scaled by f, kept to the cent. */
const cents = (v: number, f: number) => Math.round(v * f * 100) / 100;

/** The batch with every BTC price in USD multiplied by f; counts, rates and ratios unchanged. */
export function scaleBtcBatch(batch: IngestBatchInput, f: number): IngestBatchInput {
  switch (batch.kind) {
    case 'option_marks':
      return { ...batch, rows: batch.rows.map((r) => scaledOption(r, f)) };
    case 'mark_prices':
      return {
        ...batch,
        rows: batch.rows.map((r) => ({
          ...r,
          mark_price: cents(r.mark_price, f),
          ...(r.index_price !== undefined && r.index_price !== null
            ? { index_price: cents(r.index_price, f) }
            : {}),
        })),
      };
    case 'observations':
      return {
        ...batch,
        rows: batch.rows.map((r) => {
          if (r.metric !== 'btc_market_cap' || r.value === null || r.value === undefined) return r;
          const payload = r.payload as { price_usd?: number; supply_btc?: number } | undefined;
          const price = payload?.price_usd !== undefined ? cents(payload.price_usd, f) : undefined;
          const value =
            price !== undefined && payload?.supply_btc !== undefined
              ? price * payload.supply_btc
              : r.value * f;
          return { ...r, value: Math.round(value * 100) / 100, payload: { ...payload, price_usd: price } };
        }),
      };
    // A funding rate is a ratio, which the scaling keeps; trades and candles come from the spot
    // recordings, which are the level itself and are never scaled.
    case 'funding':
    case 'trades':
    case 'candles':
      return batch;
  }
}
