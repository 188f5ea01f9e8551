import { byCodeUnits } from '@meridian/contracts';

const YEAR_MS = 365 * 86_400_000;
export const IV_INDEX_HORIZON_DAYS = 30;

/** One option of a stored chain snapshot (the option_marks row). */
export interface OptionMark {
  instrument: string;
  ts: Date;
  underlying: string;
  expiry: Date;
  strike: number;
  option_type: 'call' | 'put';
  underlying_px: number;
  mark_price_usd: number;
  mark_iv: number | null;
  delta: number | null;
  gamma: number | null;
  vega: number | null;
  theta: number | null;
  open_interest: number;
}

export interface ChainOption {
  instrument: string;
  expiry: string;
  strike: number;
  option_type: 'call' | 'put';
  mark_price_usd: number;
  mark_iv: number | null;
  delta: number | null;
  gamma: number | null;
  vega: number | null;
  theta: number | null;
  open_interest: number;
}

export interface Chain {
  underlying: string;
  underlying_px: number;
  options: ChainOption[];
}

/**
 * underlying_px of the chain: the forward of the nearest live expiry (Deribit prices each expiry
 * off its own forward; the nearest one is the closest to the index).
 */
export function chainUnderlyingPx(marks: OptionMark[]): number {
  const nearest = [...marks].sort((a, b) => a.expiry.getTime() - b.expiry.getTime() || +b.ts - +a.ts)[0];
  return nearest?.underlying_px ?? NaN;
}

export function buildChain(underlying: string, marks: OptionMark[]): Chain {
  const options = [...marks]
    .sort(
      (a, b) =>
        a.expiry.getTime() - b.expiry.getTime() ||
        a.strike - b.strike ||
        byCodeUnits(a.option_type, b.option_type),
    )
    .map((m) => ({
      instrument: m.instrument,
      expiry: m.expiry.toISOString(),
      strike: m.strike,
      option_type: m.option_type,
      mark_price_usd: round(m.mark_price_usd, 6),
      mark_iv: m.mark_iv,
      delta: m.delta,
      gamma: m.gamma,
      vega: m.vega,
      theta: m.theta,
      open_interest: m.open_interest,
    }));
  return { underlying, underlying_px: chainUnderlyingPx(marks), options };
}

export interface OpenInterest {
  calls: number;
  puts: number;
  total: number;
  /** Open interest times the expiry's forward, USD. */
  notional_usd: number;
  by_expiry: { expiry: string; calls: number; puts: number }[];
}

/** Deribit counts option open interest in contracts of 1 underlying unit (1 BTC). */
export function openInterest(marks: OptionMark[]): OpenInterest {
  const byExpiry = new Map<string, { expiry: string; calls: number; puts: number }>();
  let calls = 0;
  let puts = 0;
  let notional = 0;
  for (const m of marks) {
    const key = m.expiry.toISOString();
    const e = byExpiry.get(key) ?? { expiry: key, calls: 0, puts: 0 };
    if (m.option_type === 'call') {
      calls += m.open_interest;
      e.calls += m.open_interest;
    } else {
      puts += m.open_interest;
      e.puts += m.open_interest;
    }
    notional += m.open_interest * m.underlying_px;
    byExpiry.set(key, e);
  }
  const r = (v: number) => round(v, 4);
  return {
    calls: r(calls),
    puts: r(puts),
    total: r(calls + puts),
    notional_usd: round(notional, 2),
    by_expiry: [...byExpiry.values()]
      .sort((a, b) => byCodeUnits(a.expiry, b.expiry))
      .map((e) => ({ expiry: e.expiry, calls: r(e.calls), puts: r(e.puts) })),
  };
}

export function putCallOiRatio(oi: OpenInterest): number | null {
  return oi.calls === 0 ? null : round(oi.puts / oi.calls, 6);
}

export interface ExpiryVariance {
  expiry: string;
  /** Years to expiry from the snapshot time. */
  t_years: number;
  forward: number;
  k0: number;
  strikes_used: number;
  /** Model-free variance of the expiry (annualised, fraction^2). */
  variance: number;
  /** Mark IV of the strike nearest the forward, fraction, for comparison. */
  atm_mark_iv: number | null;
}

export interface ImpliedVolIndex {
  /** Percent: 30-day implied volatility, annualised. */
  value: number;
  horizon_days: number;
  near: ExpiryVariance;
  next: ExpiryVariance;
  weights: { near: number; next: number };
}

/**
 * The variance of one expiry by the CBOE VIX formula (2019 white paper) on mark prices in USD,
 * interest rate 0 (Deribit records 0.0):
 *   sigma^2 = 2/T x sum(dK_i / K_i^2 x Q(K_i)) - 1/T x (F/K0 - 1)^2
 * F the expiry's forward (Deribit underlying_price), K0 the first strike at or below F, Q the
 * out-of-the-money mark (put below K0, call above, their mean at K0); zero marks are skipped.
 */
export function expiryVariance(marks: OptionMark[], at: Date): ExpiryVariance | undefined {
  if (marks.length === 0) return undefined;
  const expiry = marks[0]!.expiry;
  const t = (expiry.getTime() - at.getTime()) / YEAR_MS;
  if (t <= 0) return undefined;
  const forward = medianOf(marks.map((m) => m.underlying_px));
  const strikes = [...new Set(marks.map((m) => m.strike))].sort((a, b) => a - b);
  const k0 = strikes.filter((k) => k <= forward).pop() ?? strikes[0]!;
  const price = (k: number, type: 'call' | 'put') =>
    marks.find((m) => m.strike === k && m.option_type === type)?.mark_price_usd;
  const quotes: { k: number; q: number }[] = [];
  for (const k of strikes) {
    const q =
      k < k0 ? price(k, 'put') : k > k0 ? price(k, 'call') : meanDefined(price(k, 'put'), price(k, 'call'));
    if (q !== undefined && q > 0) quotes.push({ k, q });
  }
  if (quotes.length < 2) return undefined;
  let sum = 0;
  quotes.forEach(({ k, q }, i) => {
    const prev = quotes[i - 1]?.k;
    const next = quotes[i + 1]?.k;
    const dk = prev === undefined ? next! - k : next === undefined ? k - prev : (next - prev) / 2;
    sum += (dk / (k * k)) * q;
  });
  const variance = (2 / t) * sum - (1 / t) * (forward / k0 - 1) ** 2;
  const atm = [...marks].sort((a, b) => Math.abs(a.strike - forward) - Math.abs(b.strike - forward))[0];
  return {
    expiry: expiry.toISOString(),
    t_years: round(t, 6),
    forward,
    k0,
    strikes_used: quotes.length,
    variance: round(variance, 6),
    atm_mark_iv: atm?.mark_iv ?? null,
  };
}

/**
 * 30-day constant-maturity implied volatility, VIX-style: the model-free variance of the two
 * expiries bracketing 30 days (the two nearest on one side when none brackets), interpolated
 * linearly in total variance to 30 days, annualised, square-rooted, in percent. Expiries closer
 * than one day are left out: their variance is dominated by the last hours' noise.
 */
export function impliedVolIndex(marks: OptionMark[], at: Date): ImpliedVolIndex | undefined {
  const horizon = (IV_INDEX_HORIZON_DAYS * 86_400_000) / YEAR_MS;
  const byExpiry = new Map<number, OptionMark[]>();
  for (const m of marks) {
    if (m.expiry.getTime() - at.getTime() < 86_400_000) continue;
    const list = byExpiry.get(m.expiry.getTime()) ?? [];
    list.push(m);
    byExpiry.set(m.expiry.getTime(), list);
  }
  const expiries = [...byExpiry.keys()].sort((a, b) => a - b);
  const target = at.getTime() + IV_INDEX_HORIZON_DAYS * 86_400_000;
  const before = expiries.filter((e) => e <= target);
  const after = expiries.filter((e) => e > target);
  const pair =
    before.length > 0 && after.length > 0
      ? [before[before.length - 1]!, after[0]!]
      : before.length >= 2
        ? before.slice(-2)
        : after.slice(0, 2);
  if (pair.length < 2) return undefined;
  const near = expiryVariance(byExpiry.get(pair[0]!)!, at);
  const next = expiryVariance(byExpiry.get(pair[1]!)!, at);
  if (!near || !next) return undefined;
  const wNear = (next.t_years - horizon) / (next.t_years - near.t_years);
  const wNext = 1 - wNear;
  const variance = (near.t_years * near.variance * wNear + next.t_years * next.variance * wNext) / horizon;
  if (!(variance > 0)) return undefined;
  return {
    value: round(100 * Math.sqrt(variance), 4),
    horizon_days: IV_INDEX_HORIZON_DAYS,
    near,
    next,
    weights: { near: round(wNear, 6), next: round(wNext, 6) },
  };
}

export interface DemoOptions {
  underlying: string;
  underlying_px: number;
  contracts: {
    instrument: string;
    strike: number;
    option_type: 'C' | 'P';
    mark_price_usd: number;
    mark_iv: number | null;
    delta: number | null;
  }[];
}

/** The demo's few contracts: the expiry nearest 30 days, the three calls and puts nearest the money. */
export function demoOptions(chain: Chain, at: Date): DemoOptions {
  const target = at.getTime() + IV_INDEX_HORIZON_DAYS * 86_400_000;
  const expiries = [...new Set(chain.options.map((o) => o.expiry))];
  const expiry = expiries.sort(
    (a, b) => Math.abs(Date.parse(a) - target) - Math.abs(Date.parse(b) - target),
  )[0];
  const forward = chain.underlying_px;
  const pick = (type: 'call' | 'put') =>
    chain.options
      .filter((o) => o.expiry === expiry && o.option_type === type)
      .sort((a, b) => Math.abs(a.strike - forward) - Math.abs(b.strike - forward))
      .slice(0, 3);
  const contracts = [...pick('call'), ...pick('put')]
    .sort((a, b) => a.strike - b.strike || byCodeUnits(a.option_type, b.option_type))
    .map((o) => ({
      instrument: o.instrument,
      strike: o.strike,
      option_type: o.option_type === 'call' ? ('C' as const) : ('P' as const),
      mark_price_usd: round(o.mark_price_usd, 2),
      mark_iv: o.mark_iv === null ? null : round(o.mark_iv * 100, 2),
      delta: o.delta,
    }));
  return { underlying: chain.underlying, underlying_px: chain.underlying_px, contracts };
}

function medianOf(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function meanDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return (a + b) / 2;
}

export function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
