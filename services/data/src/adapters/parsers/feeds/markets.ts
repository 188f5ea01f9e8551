import type { IngestBatchInput } from '@meridian/contracts';
import { ETF_ALL } from '../../../domain/feeds/observation-keys.js';
import type { ReplayClock } from '../../../domain/replay-clock.js';
import { csvRecords } from '../csv.js';
import { observationBatch, type ObservationInput } from './observations.js';

const MONTHS: Record<string, string> = {
  Jan: '01', Feb: '02', Mar: '03', Apr: '04', May: '05', Jun: '06',
  Jul: '07', Aug: '08', Sep: '09', Oct: '10', Nov: '11', Dec: '12',
}; // prettier-ignore

/** Farside writes US$m with outflows in parentheses and '-' for no flow. */
export function farsideAmountUsd(cell: string): number {
  const t = cell.replace(/,/g, '').trim();
  if (t === '-' || t === '') return 0;
  const negative = /^\(.*\)$/.test(t);
  const millions = Number(t.replace(/[()]/g, ''));
  return Math.round((negative ? -millions : millions) * 1_000_000);
}

/**
 * Farside's bitcoin ETF flow table as records keyed by its header (Date, one column per fund, Total):
 * one row per trading day ("13 Nov 2024"), and the closing "Total" row, the cumulative flow since
 * launch. A day's flow is dated the day at 00:00 UTC; the cumulative at the last day of the table. A
 * day whose every fund reads "-" is not published yet (the newest row of the live page before the
 * issuers report) and is left out rather than stored as zero flows.
 */
function farsideBatch(records: Record<string, string>[], clock: ReplayClock): IngestBatchInput {
  const funds = Object.keys(records[0] ?? {}).filter((c) => c !== 'Date' && c !== 'Total' && c !== '');
  const rows: ObservationInput[] = [];
  let lastDay = '';
  for (const r of records) {
    const m = /^(\d{1,2}) (\w{3}) (\d{4})$/.exec(r.Date ?? '');
    if (!m || !MONTHS[m[2]!]) continue;
    if (funds.every((f) => (r[f] ?? '-').trim() === '-')) continue;
    lastDay = `${m[3]}-${MONTHS[m[2]!]}-${m[1]!.padStart(2, '0')}T00:00:00Z`;
    const ts = clock(lastDay);
    for (const f of [...funds, 'Total'])
      rows.push({
        key: f === 'Total' ? ETF_ALL : f,
        metric: 'etf_net_flow',
        ts,
        value: farsideAmountUsd(r[f] ?? ''),
      });
  }
  const total = records.find((r) => r.Date === 'Total');
  if (total && lastDay)
    for (const f of [...funds, 'Total'])
      rows.push({
        key: f === 'Total' ? ETF_ALL : f,
        metric: 'etf_cumulative_net_flow',
        ts: clock(lastDay),
        value: farsideAmountUsd(total[f] ?? ''),
      });
  return observationBatch('farside', rows);
}

/** Farside's flow table exported as CSV (the recording). */
export function parseFarsideFlows(text: string, clock: ReplayClock): IngestBatchInput {
  return farsideBatch(csvRecords(text), clock);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** The text of an HTML cell: tags dropped, the few entities Farside writes decoded, spaces collapsed. */
function cellText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ENTITIES[e]!)
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Farside's flow page (farside.co.uk/btc/) as it is published: one `<table class="etf">` whose rows
 * are a title row, the fund tickers (first cell empty, last "Total"), the fees, one row per trading
 * day and the summary rows (Total, Average, Maximum, Minimum), in US$m with outflows in parentheses.
 * Read into the CSV's records, so both go through one parser. A page without the table (a bot
 * challenge, a redesign) throws: not Farside's format.
 */
export function parseFarsideHtml(text: string, clock: ReplayClock): IngestBatchInput {
  const table = /<table[^>]*class="[^"]*\betf\b[^"]*"[^>]*>([\s\S]*?)<\/table>/i.exec(text);
  if (!table) throw new Error('no <table class="etf">: not the Farside flow page');
  const rows = [...table[1]!.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/gi)].map((tr) =>
    [...tr[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/gi)].map((c) => cellText(c[1]!)),
  );
  const header = rows.find((r) => r.length > 2 && r[r.length - 1] === 'Total' && r.includes('IBIT'));
  if (!header) throw new Error('the Farside table has no row of fund tickers');
  const names = ['Date', ...header.slice(1)];
  return farsideBatch(
    rows
      .filter((r) => r !== header && r.length === names.length)
      .map((r) => Object.fromEntries(names.map((n, i) => [n, r[i] ?? '']))),
    clock,
  );
}

/** blockchain.info /stats: hash_rate in GH/s, totalbc in satoshi, n_tx over 24 h. */
export function parseBlockchainStats(text: string, clock: ReplayClock): IngestBatchInput {
  const s = JSON.parse(text) as Record<string, number>;
  const ts = clock(s.timestamp!);
  const supply = s.totalbc! / 1e8;
  const row = (metric: string, value: number, payload: Record<string, unknown> = {}): ObservationInput => ({
    key: 'BTC',
    metric,
    ts,
    value,
    payload,
  });
  return observationBatch('blockchain_info', [
    row('btc_market_cap', Math.round(s.market_price_usd! * supply * 100) / 100, {
      price_usd: s.market_price_usd,
      supply_btc: supply,
    }),
    row('btc_hashrate', s.hash_rate! / 1e9, { hash_rate_ghs: s.hash_rate }),
    row('btc_difficulty', s.difficulty!),
    row('btc_tx_count', s.n_tx!, { window: '24h' }),
  ]);
}

/** The fx/spot pairs of one ECB fixing (rates per euro), GBP-USD and USD-JPY crossed through the euro. */
function ecbRows(date: string, rates: Record<string, number>, clock: ReplayClock): ObservationInput[] {
  const ts = clock(`${date}T15:00:00Z`);
  const usd = rates.USD;
  if (usd === undefined) return [];
  const pairs: [string, number | undefined][] = [
    ['EUR-USD', usd],
    ['GBP-USD', rates.GBP === undefined ? undefined : usd / rates.GBP],
    ['USD-JPY', rates.JPY === undefined ? undefined : rates.JPY / usd],
  ];
  return pairs.flatMap(([pair, value]) =>
    value === undefined
      ? []
      : [
          {
            key: pair,
            metric: 'fx_reference_rate',
            ts,
            value: Math.round(value * 1e6) / 1e6,
            payload: { cross: pair === 'EUR-USD' ? 'direct' : 'via EUR' },
          },
        ],
  );
}

/**
 * The ECB's euro foreign exchange reference rates as the ECB publishes them (`eurofxref-daily.xml`,
 * `eurofxref-hist-90d.xml`): a gesmes envelope of `<Cube time='YYYY-MM-DD'>` days, each holding
 * `<Cube currency='USD' rate='1.0540'/>` per currency, rates per euro. Fixed about 16:00 CET, dated
 * 15:00 UTC. A document that is not that envelope throws; an envelope without days is an empty answer.
 */
export function parseEcbEurofxref(text: string, clock: ReplayClock): IngestBatchInput {
  if (!/<gesmes:Envelope[\s>]/.test(text) || !/<\/gesmes:Envelope>\s*$/.test(text))
    throw new Error('not an ECB gesmes:Envelope of reference rates');
  const rows: ObservationInput[] = [];
  const days = text.split(/<Cube\s+time=["']/).slice(1);
  for (const day of days) {
    const date = /^(\d{4}-\d{2}-\d{2})["']/.exec(day)?.[1];
    if (!date) throw new Error('an ECB Cube without a date');
    const rates: Record<string, number> = {};
    for (const m of day.matchAll(/<Cube\s+currency=["']([A-Z]{3})["']\s+rate=["']([0-9.]+)["']\s*\/>/g))
      rates[m[1]!] = Number(m[2]);
    rows.push(...ecbRows(date, rates, clock));
  }
  return observationBatch('ecb', rows);
}

/** Where one FRED series is stored: its metric and key, and `scale` from the series unit to the answer's. */
export interface FredTarget {
  metric: string;
  key: string;
  scale: number;
}

/**
 * FRED `series/observations` JSON (file_type=json): observations of {date, value} with "." for a day
 * without a value (a holiday of a daily series), each dated its day at 00:00 UTC.
 */
export function parseFredSeries(text: string, target: FredTarget, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as { observations?: { date: string; value: string }[] };
  if (!Array.isArray(doc.observations)) throw new Error('a FRED answer without observations');
  return observationBatch(
    'fred',
    doc.observations
      .filter((o) => o.value !== '.')
      .map((o) => ({
        key: target.key,
        metric: target.metric,
        ts: clock(`${o.date}T00:00:00Z`),
        value: Math.round(Number(o.value) * target.scale * 1000) / 1000,
      })),
  );
}

/** FRED series/observations JSON of a macro series (no key); `scale` turns the series unit into the answer's (billions → USD). */
export function parseFredObservations(
  text: string,
  metric: string,
  scale: number,
  clock: ReplayClock,
): IngestBatchInput {
  return parseFredSeries(text, { metric, key: '', scale }, clock);
}
