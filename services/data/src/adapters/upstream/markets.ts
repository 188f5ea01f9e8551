import type { IngestBatchInput } from '@meridian/contracts';
import { ETF_ALL } from '../../domain/feeds/observation-keys.js';
import type { ReplayClock } from '../../domain/replay-clock.js';
import { csvRecords } from './csv.js';
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
 * Farside's bitcoin ETF flow table: one row per trading day ("13 Nov 2024"), one column per fund
 * and Total; the closing "Total" row is the cumulative flow since launch. A day's flow is dated
 * the day at 00:00 UTC; the cumulative at the last day of the table.
 */
export function parseFarsideFlows(text: string, clock: ReplayClock): IngestBatchInput {
  const records = csvRecords(text);
  const funds = Object.keys(records[0] ?? {}).filter((c) => c !== 'Date' && c !== 'Total');
  const rows: ObservationInput[] = [];
  let lastDay = '';
  for (const r of records) {
    const m = /^(\d{1,2}) (\w{3}) (\d{4})$/.exec(r.Date ?? '');
    if (!m) continue;
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

/** ECB reference rates through Frankfurter (base EUR), published about 16:00 CET: 15:00 UTC. */
export function parseFrankfurter(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as { base: string; rates: Record<string, Record<string, number>> };
  const rows: ObservationInput[] = [];
  for (const [date, rates] of Object.entries(doc.rates)) {
    const ts = clock(`${date}T15:00:00Z`);
    const usd = rates.USD;
    if (usd === undefined) continue;
    const pairs: [string, number | undefined][] = [
      ['EUR-USD', usd],
      ['GBP-USD', rates.GBP === undefined ? undefined : usd / rates.GBP],
      ['USD-JPY', rates.JPY === undefined ? undefined : rates.JPY / usd],
    ];
    for (const [pair, value] of pairs)
      if (value !== undefined)
        rows.push({
          key: pair,
          metric: 'fx_reference_rate',
          ts,
          value: Math.round(value * 1e6) / 1e6,
          payload: { cross: pair === 'EUR-USD' ? 'direct' : 'via EUR' },
        });
  }
  return observationBatch('ecb', rows);
}

/** Stooq daily CSV (Date,Open,High,Low,Close,Volume); the close is dated 21:00 UTC (16:00 New York). */
export function parseStooqDaily(text: string, key: string, clock: ReplayClock): IngestBatchInput {
  return observationBatch(
    'stooq',
    csvRecords(text).map((r) => ({
      key,
      metric: 'index_close',
      ts: clock(`${r.Date}T21:00:00Z`),
      value: Number(r.Close),
      payload: {
        open: Number(r.Open),
        high: Number(r.High),
        low: Number(r.Low),
        close: Number(r.Close),
        volume: Number(r.Volume),
      },
    })),
  );
}

/** FRED series/observations JSON; `scale` turns the series unit into the answer's (billions → USD). */
export function parseFredObservations(
  text: string,
  metric: string,
  scale: number,
  clock: ReplayClock,
): IngestBatchInput {
  const doc = JSON.parse(text) as { observations: { date: string; value: string }[] };
  return observationBatch(
    'fred',
    doc.observations
      .filter((o) => o.value !== '.')
      .map((o) => ({
        key: '',
        metric,
        ts: clock(`${o.date}T00:00:00Z`),
        value: Math.round(Number(o.value) * scale * 1000) / 1000,
      })),
  );
}
