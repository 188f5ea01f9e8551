import { z } from 'zod';
import { PLANS, type Plan } from './caller.js';

/**
 * The metric catalogue: the one source of truth for the data service's resolver, the gateway's
 * plan gate, the OpenAPI document, llms.txt, the x402 manifest and the agent tools
 * (data-api-interface 2.3, 4.2).
 */
export const valueShapeSchema = z.enum(['scalar', 'object', 'series']);
export const metricStatusSchema = z.enum(['live', 'planned']);

export interface MetricEntry {
  metric: string;
  value_shape: z.infer<typeof valueShapeSchema>;
  unit: string;
  cadence: string;
  /**
   * The cadence in numbers: time between two publications of the upstream, in ms (for an upstream that
   * changes continuously, between two of our polls). Absent only for a real-time tick metric.
   */
  cadence_ms?: number;
  /**
   * The age in ms past which the metric's newest value is overdue (see `overdueAfter`). The data
   * service reads it and no constant of its own: a venue this old is dropped as stale where several
   * venues combine, and meta.confidence scores a value this old 0.37 on freshness. Absent when cadence_ms is.
   */
  max_age_ms?: number;
  status: z.infer<typeof metricStatusSchema>;
  /** The metric's own gate; the effective gate is the higher of this and the product's. */
  min_tier: Plan;
  /**
   * Whether `series=true` has an answer (a history of the metric); true for every series-shaped metric.
   * The data service refuses series=true on the others, and the gateway prices it as a series read only here.
   */
  series: boolean;
  description: string;
}

export interface ProductEntry {
  category: string;
  product: string;
  min_tier: Plan;
  /** Venues or upstream sources the product draws on. */
  sources: string[];
  /** Entity identifiers the product offers; empty for metrics with no entity. */
  entities: string[];
  metrics: MetricEntry[];
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** The longest month: a monthly series waits at most this for its next point. */
const MONTH = 31 * DAY;

/** A cadence in words, and in numbers unless it is real-time (see MetricEntry.cadence_ms, max_age_ms). */
type Cadence = string | { words: string; ms: number; maxAgeMs: number };

/**
 * When the newest value of an upstream is overdue: its own timestamp trails its publication by `lag`
 * (a month's mean is dated the 1st and published weeks after the month ends), the next publication
 * normally comes within `longestWait` (Friday's fixing waits until Monday), and two more missed
 * publications (a holiday, a late upstream, two failed polls) are still no reason to distrust it.
 */
function overdueAfter(every: number, lag: number, longestWait: number): number {
  return lag + longestWait + 2 * every;
}

/** An upstream that changes continuously, polled about every `seconds`: overdue after three polls. */
function polled(seconds: number): Cadence {
  const words = seconds < 120 ? `${seconds} s` : `${seconds / 60} min`;
  const ms = seconds * 1000;
  return { words: `about ${words} polled`, ms, maxAgeMs: overdueAfter(ms, 0, ms) };
}

interface Publication {
  /** How far the value's own timestamp trails its publication. */
  lag?: number;
  /** Published on business days only: Friday's value waits three days for Monday's. */
  businessDays?: boolean;
}

/** An upstream that publishes every `every` ms on its own calendar. */
function published(
  words: string,
  every: number,
  { lag = 0, businessDays = false }: Publication = {},
): Cadence {
  const longestWait = businessDays ? 3 * every : every;
  return { words, ms: every, maxAgeMs: overdueAfter(every, lag, longestWait) };
}

interface MetricOptions {
  min_tier?: Plan;
  /** The metric's own cadence when it differs from the product's. */
  cadence?: Cadence;
  /** series=true answers the metric's history (see MetricEntry.series). */
  series?: boolean;
}

/** The metric answers its stored history with series=true. */
const HISTORY: MetricOptions = { series: true };

type MetricSpec = [
  metric: string,
  shape: MetricEntry['value_shape'],
  unit: string,
  description: string,
  options?: MetricOptions,
];

function cadenceOf(cadence: Cadence): Pick<MetricEntry, 'cadence' | 'cadence_ms' | 'max_age_ms'> {
  return typeof cadence === 'string'
    ? { cadence }
    : { cadence: cadence.words, cadence_ms: cadence.ms, max_age_ms: cadence.maxAgeMs };
}

function product(
  category: string,
  name: string,
  minTier: Plan,
  cadence: Cadence,
  sources: string[],
  entities: string[],
  metrics: MetricSpec[],
  planned: MetricSpec[] = [],
): ProductEntry {
  const entry =
    (status: MetricEntry['status']) =>
    ([metric, shape, unit, description, options = {}]: MetricSpec): MetricEntry => ({
      metric,
      value_shape: shape,
      unit,
      ...cadenceOf(options.cadence ?? cadence),
      status,
      min_tier: options.min_tier ?? minTier,
      series: shape === 'series' || options.series === true,
      description,
    });
  return {
    category,
    product: name,
    min_tier: minTier,
    sources,
    entities,
    metrics: [...metrics.map(entry('live')), ...planned.map(entry('planned'))],
  };
}

/**
 * Spot entities: BASE-USD is the combined cross-venue value in USD; a venue's own market (BASE-USDT,
 * BASE-USDC, ...) is answered natively with `source=<venue>`. Only markets with recorded data are
 * listed (data-api-interface 2.3 counts 19 spot and 19 futures markets but names none; the data
 * service's README says which markets the recordings hold). Ingestion refuses other symbols.
 */
const SPOT_PAIRS = ['BTC-USD', 'BTC-USDT', 'BTC-USDC'];

/** Open-Meteo's current conditions are 15-minutely model data (`current.interval` 900 s). */
const OPEN_METEO_CURRENT = published('every 15 min', 15 * MINUTE);

export const CATALOG: readonly ProductEntry[] = [
  product(
    'crypto',
    'spot',
    'free',
    // A venue prints a bar only for a second or minute with trades, so a quiet market's newest bar may be
    // minutes old; a quarter of an hour without one means the market stopped printing for us.
    { words: '1s/1m native', ms: MINUTE, maxAgeMs: 15 * MINUTE },
    ['binanceus', 'kraken'],
    SPOT_PAIRS,
    [
      ['reference_price', 'object', 'USD', 'Outlier-trimmed cross-venue price with per-venue provenance'],
      [
        'change_24h',
        'object',
        'percent',
        'Latest close versus the close about 24 h earlier, from combined OHLCV',
      ],
      ['range_24h', 'object', 'USD', '24 h high, low and total volume from combined 1m OHLCV'],
      [
        'vwap_24h',
        'object',
        'USD',
        '24 h volume-weighted average price proxy (sum of midprice x volume over volume)',
      ],
      [
        'realized_volatility_24h',
        'object',
        'percent',
        'Standard deviation of per-minute log returns, plus an annualized figure',
      ],
      ['trade_count_24h', 'object', 'count', 'Sum of trade counts over 24 h across venues'],
      [
        'ohlcv',
        'series',
        'USD',
        'Open, high, low, close, volume bars; per venue or combined; 1s and 1m native',
      ],
      [
        'trades',
        'series',
        'USD',
        'Normalized taker-aggressor trade prints per venue',
        { min_tier: 'basic', cadence: 'real-time tick' },
      ],
    ],
    [
      ['order_book_depth', 'object', 'USD', 'Bid and ask depth within 1 % of the mid, per venue'],
      ['spread', 'object', 'percent', 'Best bid-ask spread per venue'],
    ],
  ),
  product(
    'crypto',
    'options',
    'pro',
    // Deribit marks change continuously; the chain is one poll, and a mark older than max_age_ms before
    // the newest is not part of the newest snapshot (an instrument no longer listed).
    polled(60),
    ['deribit'],
    ['BTC'],
    [
      ['chain', 'object', 'USD', 'Options chain with marks, implied volatility, greeks and open interest'],
      ['implied_vol_index', 'object', 'percent', '30-day implied volatility index from the chain'],
      ['put_call_oi_ratio', 'object', 'ratio', 'Put open interest over call open interest'],
      [
        'open_interest',
        'object',
        'contracts',
        'Total open interest of calls and puts, in contracts of 1 underlying unit',
      ],
    ],
  ),
  product(
    'crypto',
    'futures',
    'ultra',
    polled(60),
    ['binance_futures', 'deribit'],
    ['BTC-USD'],
    [
      ['funding', 'object', 'rate', 'Perpetual funding rate'],
      ['mark_price', 'object', 'USD', 'Futures mark price'],
      ['basis', 'object', 'percent', '(perp mark_price - spot reference_price) / reference_price x 100'],
    ],
  ),
  product(
    'crypto',
    'etf_flows',
    'free',
    // Farside dates a trading day's flow 00:00 UTC of that day and publishes it after the US close.
    published('daily, US trading days, after the close', DAY, { lag: DAY, businessDays: true }),
    ['farside'],
    ['IBIT', 'FBTC', 'GBTC', 'ARKB', 'BITB'],
    [
      ['net_flow', 'object', 'USD', 'Net creation or redemption flow of the day, all funds', HISTORY],
      ['cumulative_net_flow', 'object', 'USD', 'Cumulative net flow since launch', HISTORY],
      ['flow_by_etf', 'object', 'USD', 'Net flow of the day per fund'],
    ],
  ),
  product(
    'crypto',
    'network',
    'free',
    // blockchain.info /stats moves with the blocks, about one every 10 minutes.
    polled(600),
    ['blockchain_info'],
    ['BTC'],
    [
      ['market_cap', 'scalar', 'USD', 'Market capitalisation', HISTORY],
      ['hashrate', 'scalar', 'EH/s', 'Network hash rate', HISTORY],
      ['difficulty', 'scalar', 'count', 'Mining difficulty', HISTORY],
      ['tx_count', 'scalar', 'count', 'Transactions in the last 24 h', HISTORY],
    ],
  ),
  product(
    'fx',
    'spot',
    'free',
    // The ECB fixes its reference rates once a day on TARGET business days, dated at the fixing.
    published('daily, ECB business days, about 16:00 CET', DAY, { businessDays: true }),
    ['ecb'],
    ['EUR-USD', 'GBP-USD', 'USD-JPY'],
    [
      ['reference_rate', 'object', 'rate', 'Reference exchange rate', HISTORY],
      ['change_24h', 'object', 'percent', 'Change of the reference rate over about 24 h', HISTORY],
    ],
  ),
  product(
    'weather',
    'observations',
    'free',
    OPEN_METEO_CURRENT,
    ['open_meteo'],
    ['london', 'new_york', 'tokyo'],
    [
      ['temperature', 'scalar', 'celsius', 'Air temperature at 2 m', HISTORY],
      ['wind_speed', 'scalar', 'km/h', 'Wind speed at 10 m', HISTORY],
      ['precipitation', 'scalar', 'mm', 'Precipitation over the preceding 15 minutes', HISTORY],
    ],
  ),
  product(
    'sports',
    'tennis',
    'basic',
    polled(60),
    ['espn'],
    ['atp', 'wta'],
    [
      ['match_result', 'object', 'score', 'Final results only', HISTORY],
      ['live_score', 'object', 'score', 'In-progress matches only', HISTORY],
    ],
  ),
  product(
    'sports',
    'football',
    'basic',
    polled(60),
    ['espn'],
    ['eng.1', 'usa.1'],
    [
      ['match_result', 'object', 'score', 'Final results only', HISTORY],
      ['live_score', 'object', 'score', 'In-progress games only', HISTORY],
    ],
  ),
  product(
    'sports',
    'basketball',
    'basic',
    polled(60),
    ['espn'],
    ['nba'],
    [
      ['match_result', 'object', 'score', 'Final results only', HISTORY],
      ['box_score', 'object', 'score', 'Team scores of any played game (in progress or final)', HISTORY],
      ['live_score', 'object', 'score', 'In-progress games only', HISTORY],
    ],
  ),
  product(
    'absurd_cosmos',
    'space_weather',
    'free',
    // A 3-hour index, dated at the start of its interval and published when the interval ends.
    published('every 3 h', 3 * HOUR, { lag: 3 * HOUR }),
    ['noaa_swpc'],
    [],
    [['planetary_kp', 'scalar', 'index', 'Planetary K-index of geomagnetic activity', HISTORY]],
  ),
  product(
    'absurd_cosmos',
    'restless_earth',
    'free',
    // USGS regenerates its all_day summary feed every minute.
    polled(60),
    ['usgs'],
    [],
    [
      ['quakes_last_hour', 'scalar', 'count', 'Earthquakes recorded worldwide in the last hour'],
      ['largest_quake_today', 'object', 'magnitude', 'Largest earthquake of the UTC day'],
    ],
  ),
  product(
    'absurd_cosmos',
    'off_world',
    'free',
    // astros.json carries no time and changes with crew rotations; it is read once a day.
    published('daily', DAY),
    ['open_notify'],
    [],
    [['humans_in_space', 'object', 'count', 'People in space right now, by craft', HISTORY]],
  ),
  product(
    'absurd_cosmos',
    'solar_cycle',
    'free',
    // A month's mean, dated the 1st, published in the first week after the month ends.
    published('monthly, early the next month', MONTH, { lag: MONTH + WEEK }),
    ['noaa_swpc'],
    [],
    [['sunspot_number', 'scalar', 'count', 'Monthly mean sunspot number', HISTORY]],
  ),
  product(
    'absurd_civic',
    'leviathan_ledger',
    'free',
    published('daily, federal business days', DAY, { businessDays: true }),
    ['federal_register'],
    [],
    [['red_tape_output', 'object', 'count', 'Documents published in the Federal Register today', HISTORY]],
  ),
  product(
    'absurd_civic',
    'city_nervous_system',
    'free',
    published('daily', DAY),
    ['nyc_311'],
    [],
    [['rat_sightings_today', 'scalar', 'count', 'Rat sightings reported to NYC 311 today']],
  ),
  product(
    'absurd_economy',
    'treasury',
    'free',
    // Debt to the Penny: a business day's debt, dated that day, published the next business day.
    published('daily, business days, the next day', DAY, { lag: DAY, businessDays: true }),
    ['fiscal_data'],
    [],
    [
      ['national_debt', 'scalar', 'USD', 'Total public debt outstanding', HISTORY],
      [
        'avg_interest_rate',
        'scalar',
        'percent',
        'Average interest rate on marketable debt',
        // Dated the last day of the month, published about two weeks later.
        { ...HISTORY, cadence: published('monthly, mid the next month', MONTH, { lag: 2 * WEEK }) },
      ],
    ],
  ),
  product(
    'absurd_earth',
    'weather',
    'free',
    OPEN_METEO_CURRENT,
    ['open_meteo'],
    [],
    [
      [
        'temperature',
        'scalar',
        'celsius',
        'Air temperature at the coldest inhabited place we watch',
        HISTORY,
      ],
    ],
  ),
  product(
    'absurd_earth',
    'tides',
    'free',
    published('every 6 min', 6 * MINUTE),
    ['noaa_tides'],
    [],
    [['water_level', 'scalar', 'm', 'Water level at the Battery, New York', HISTORY]],
  ),
  product(
    'stocks',
    'indices',
    'free',
    published('daily close, US trading days', DAY, { businessDays: true }),
    ['stooq'],
    [],
    [
      ['sp500', 'object', 'index points', 'S&P 500 index level', HISTORY],
      ['nasdaq', 'object', 'index points', 'Nasdaq Composite index level', HISTORY],
    ],
  ),
  product(
    'commodities',
    'energy',
    'free',
    // The EIA releases its daily spot prices once a week (Wednesdays), through a day or two before.
    published('daily prices, released weekly', WEEK, { lag: 2 * DAY }),
    ['eia'],
    [],
    [
      ['wti_crude', 'object', 'USD/bbl', 'WTI crude oil spot price', HISTORY],
      ['natural_gas', 'object', 'USD/MMBtu', 'Henry Hub natural gas spot price', HISTORY],
    ],
  ),
  product(
    'commodities',
    'metals',
    'free',
    published('daily, London business days', DAY, { businessDays: true }),
    ['lbma', 'lme'],
    [],
    [
      ['copper', 'object', 'USD/t', 'Copper price', HISTORY],
      ['gold', 'object', 'USD/ozt', 'Gold price', HISTORY],
      ['silver', 'object', 'USD/ozt', 'Silver price', HISTORY],
    ],
  ),
  product(
    'macro',
    'money',
    'free',
    // M2 of a month is dated the 1st and published about four weeks after the month ends.
    published('monthly, about 4 weeks after the month', MONTH, { lag: MONTH + 4 * WEEK }),
    ['fred'],
    [],
    [
      ['m2_money_supply', 'object', 'USD', 'M2 money stock', HISTORY],
      ['m2_growth_yoy', 'object', 'percent', 'M2 growth year over year', HISTORY],
    ],
  ),
  product(
    'macro',
    'prices',
    'free',
    // CPI of a month is dated the 1st and published about two weeks after the month ends.
    published('monthly, about 2 weeks after the month', MONTH, { lag: MONTH + 2 * WEEK }),
    ['fred'],
    [],
    [
      ['cpi', 'object', 'index', 'Consumer price index, all urban consumers', HISTORY],
      ['cpi_inflation_yoy', 'object', 'percent', 'CPI inflation year over year', HISTORY],
    ],
  ),
  product(
    'medical',
    'literature',
    'free',
    // Counts of the newest complete day, dated its 00:00 UTC.
    published('daily, the day before', DAY, { lag: DAY }),
    ['pubmed'],
    [],
    [
      ['publication_count', 'object', 'count', 'Publications indexed today'],
      ['publication_count_by_type', 'object', 'count', 'Publications indexed today, by publication type'],
    ],
  ),
  product(
    'medical',
    'guidelines',
    'free',
    // NICE's download report covers a month, dated the 1st, published in the next month.
    published('monthly report', MONTH, { lag: MONTH + 2 * WEEK }),
    ['nice'],
    [],
    [['guideline_downloads', 'object', 'count', 'Clinical guideline downloads']],
  ),
  product(
    'medical',
    'radiology',
    'free',
    published('daily', DAY),
    ['radiopaedia'],
    [],
    [
      ['article_count', 'object', 'count', 'Radiology reference articles'],
      ['article_count_by_category', 'object', 'count', 'Radiology reference articles by category'],
    ],
  ),
];

export function planRank(plan: Plan): number {
  return PLANS.indexOf(plan);
}

export function higherPlan(a: Plan, b: Plan): Plan {
  return planRank(a) >= planRank(b) ? a : b;
}

export interface CatalogHit {
  product: ProductEntry;
  metric: MetricEntry;
  /** The higher of the product's and the metric's min_tier. */
  gate: Plan;
}

const INDEX = new Map<string, CatalogHit>();
for (const p of CATALOG) {
  for (const m of p.metrics) {
    INDEX.set(`${p.category}/${p.product}/${m.metric}`, {
      product: p,
      metric: m,
      gate: higherPlan(p.min_tier, m.min_tier),
    });
  }
}

/** The catalogue entry of category/product/metric, or undefined when no such metric exists. */
export function findMetric(category: string, product: string, metric: string): CatalogHit | undefined {
  return INDEX.get(`${category}/${product}/${metric}`);
}

export function allMetrics(): CatalogHit[] {
  return [...INDEX.values()];
}

/** Path segments that are routes of their own, so never a legacy metric route. */
const RESERVED_LEGACY = new Set([
  'data',
  'catalog',
  'demo',
  'billing',
  'keys',
  'account',
  'accounts',
  'health',
]);

/**
 * Legacy single-metric routes (data-api-interface 4.1, 9): `/v1/<metric>` for every metric whose
 * name is unique in the catalogue, answered by the same resolver as `/v1/data/<category>/<product>/<metric>`
 * with the same query parameters. Path → 'category/product/metric'; the gateway routes and gates them.
 */
export const LEGACY_ROUTES: Readonly<Record<string, string>> = (() => {
  const byName = new Map<string, string[]>();
  for (const p of CATALOG)
    for (const m of p.metrics)
      byName.set(m.metric, [...(byName.get(m.metric) ?? []), `${p.category}/${p.product}/${m.metric}`]);
  const routes: Record<string, string> = {};
  for (const [name, paths] of [...byName].sort(([a], [b]) => a.localeCompare(b)))
    if (paths.length === 1 && !RESERVED_LEGACY.has(name)) routes[`/v1/${name}`] = paths[0]!;
  return Object.freeze(routes);
})();

export interface MetricPath {
  category: string;
  product: string;
  metric: string;
}

const DATA_PATH_PREFIX = '/v1/data/';

/**
 * The metric a request path names, generic (`/v1/data/<category>/<product>/<metric>`) or legacy,
 * with each segment percent-decoded. The gateway's gate and the data service's resolver read the
 * path through this one function, so an encoded path cannot name one metric to the gate and
 * another to the resolver. Undefined when the path does not have a metric's shape.
 */
export function metricPathOf(pathname: string): MetricPath | undefined {
  const legacy = Object.hasOwn(LEGACY_ROUTES, pathname) ? LEGACY_ROUTES[pathname] : undefined;
  const rest =
    legacy ?? (pathname.startsWith(DATA_PATH_PREFIX) ? pathname.slice(DATA_PATH_PREFIX.length) : undefined);
  if (rest === undefined) return undefined;
  const segments = rest.split('/');
  if (segments.length !== 3 || segments.some((s) => s === '')) return undefined;
  try {
    const [category, product, metric] = segments.map(decodeURIComponent) as [string, string, string];
    return { category, product, metric };
  } catch {
    return undefined;
  }
}

/** Whether a plan reaches a metric's gate (the higher of the product's and the metric's min_tier). */
export function planReaches(plan: Plan, hit: CatalogHit): boolean {
  return planRank(plan) >= planRank(hit.gate);
}
