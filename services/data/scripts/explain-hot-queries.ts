/**
 * pnpm data:explain — the real plans of the data service's hot queries (docs/query-plans.md).
 *
 * Without DATABASE_URL: a fresh database on the machine's Postgres (TEST_POSTGRES_URL), migrated and loaded
 * with the recorded 1m bars of fixtures/market through `ingest` (so the roll-ups are the service's own),
 * plus 1s bars and trades derived from them (the recordings have none): the last 6 h as flat 1s bars and
 * two prints per traded minute. Dropped at the end. With DATABASE_URL: that database as it is.
 *
 * The queries are not copied here: the repository functions the resolvers call run through a Kysely plugin
 * that records each compiled statement, then every statement is run again under
 * EXPLAIN (ANALYZE, BUFFERS off, COSTS off, TIMING off, SUMMARY off) inside a transaction rolled back at the
 * end (the purge's DELETE deletes nothing for good). Prints markdown on stdout.
 */
import { readFileSync } from 'node:fs';
import { catalogFor, ingestBatchSchema, type IngestBatch } from '@meridian/contracts';
import {
  CompiledQuery,
  PostgresQueryCompiler,
  sql,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformResultArgs,
  type QueryResult,
  type UnknownRow,
} from 'kysely';
import { migrateToLatest, openDatabase } from '@meridian/db';
import { createTestDatabase, type TestDatabase } from '@meridian/db/testing';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import {
  latestMarketQuotes,
  marketBars,
  marketsOf,
  newestBarBefore,
  oldestBar,
  rollupBars,
} from '../src/db/repositories/candles.js';
import { combinedRollups } from '../src/db/repositories/combined-rollups.js';
import {
  latestChainMarks,
  latestFunding,
  latestPerpMarks,
} from '../src/db/repositories/feeds-derivatives.js';
import { latestPerKey, observationHistory, replayMarker } from '../src/db/repositories/feeds-observations.js';
import { basesIn, deleteExpiredBatch } from '../src/db/repositories/retention.js';
import { tradesBefore } from '../src/db/repositories/trades.js';
import type { Bar } from '../src/domain/series/bar.js';
import { RECORDINGS, type Recording } from '../src/adapters/parsers/recordings.js';
import { CHAIN_SNAPSHOT_SPAN_MS } from '../src/flows/resolve/derivatives/options.js';
import { replayBatches } from '../src/jobs/feeds/recorded-feeds.js';
import { recordedClose } from '../src/jobs/spot/market-replay.js';
import { ingestPerpRange } from '../src/jobs/derivatives/perp-replay.js';
import { createIngestor } from '../src/flows/ingestor.js';
import type { ReplayClock } from '../src/domain/replay-clock.js';
import { ingest as ingestBatch } from '../src/flows/ingest.js';
import { PURGE_BATCH_ROWS } from '../src/jobs/retention-purge.js';
import { loadRecordedBars, RECORDED_MARKETS } from '../src/adapters/parsers/spot/recorded-market.js';

/** Stores a batch; a refused one stops the script with its reason. */
async function ingest(db: Kysely<Database>, batch: IngestBatch): Promise<void> {
  const result = await ingestBatch(db, batch, catalogFor('replay'));
  if (!result.ok) throw new Error(result.detail);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const BATCH = 20_000;

/** Records every statement a Kysely instance runs, compiled as Postgres would receive it. */
class Recorder implements KyselyPlugin {
  readonly statements: CompiledQuery[] = [];
  private readonly compiler = new PostgresQueryCompiler();
  transformQuery: KyselyPlugin['transformQuery'] = (args) => {
    this.statements.push(this.compiler.compileQuery(args.node, args.queryId));
    return args.node;
  };
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

async function load(db: Kysely<Database>): Promise<void> {
  for (const market of RECORDED_MARKETS) {
    const bars = loadRecordedBars(market);
    const batches: Array<{ interval?: '1s' | '1m'; rows: object[] }> = [];
    for (let i = 0; i < bars.length; i += BATCH)
      batches.push({ interval: '1m', rows: bars.slice(i, i + BATCH).map((b) => ({ ...b, ts: iso(b.ts) })) });
    const last = bars[bars.length - 1]!.ts;
    const seconds = bars.filter((b) => b.ts > last - 6 * HOUR).flatMap(secondsOf);
    for (let i = 0; i < seconds.length; i += BATCH)
      batches.push({ interval: '1s', rows: seconds.slice(i, i + BATCH) });
    for (const b of batches)
      await ingest(db, {
        kind: 'candles',
        source: market.venue,
        symbol: market.symbol,
        interval: b.interval!,
        rows: b.rows as never,
      });
    const trades = bars.filter((b) => b.volume > 0).flatMap(printsOf);
    for (let i = 0; i < trades.length; i += BATCH)
      await ingest(db, {
        kind: 'trades',
        source: market.venue,
        symbol: market.symbol,
        rows: trades.slice(i, i + BATCH),
      });
  }
  await loadFeeds(db);
  await loadPerps(db);
  await sql`analyze`.execute(db);
}

/**
 * The recorded feeds at their recorded time, each replayed again and again further back, so that the
 * tables hold a history as a running service would: option chains every hour for 3 days (72 snapshots),
 * every other feed once a day for 60 days.
 */
async function loadFeeds(db: Kysely<Database>): Promise<void> {
  for (const recording of RECORDINGS) {
    const text = readFileSync(new URL(`../recordings/${recording.file}`, import.meta.url), 'utf8');
    const [copies, stepMs] = historyOf(recording);
    for (let k = 0; k < copies; k++) {
      const clock: ReplayClock = (t) => iso(new Date(t).getTime() - k * stepMs);
      const parsed = recording.parse(text, clock);
      for (const batch of Array.isArray(parsed) ? parsed : [parsed])
        await ingest(db, ingestBatchSchema.parse(batch));
    }
    // The replay marker the answers look up, at the recording's own time.
    const marker = replayBatches(recording, text, new Date(recording.recordedAt)).at(-1)!;
    await ingest(db, ingestBatchSchema.parse(marker));
  }
}

/** The recorded perps as the replay plays them, every minute of the 2 days before the futures probes. */
async function loadPerps(db: Kysely<Database>): Promise<void> {
  const at = afterRecording('btc_options').getTime();
  await ingestPerpRange(createIngestor(db, catalogFor('replay')), recordedClose, at - 48 * HOUR, at);
}

function historyOf(recording: Recording): [copies: number, stepMs: number] {
  if (recording.file.startsWith('deribit/btc_options')) return [72, HOUR];
  return [60, 24 * HOUR];
}

/** One minute after the recording of `file` (the feeds' own "now"). */
function afterRecording(file: string): Date {
  const recording = RECORDINGS.find((r) => r.file.includes(file))!;
  return new Date(Date.parse(recording.recordedAt) + MINUTE);
}

const iso = (ms: number) => new Date(ms).toISOString();

function secondsOf(b: Bar) {
  return [...Array(60).keys()].map((s) => ({
    ts: iso(b.ts + s * 1000),
    open: b.close,
    high: b.close,
    low: b.close,
    close: b.close,
    volume: b.volume / 60,
    trade_count: null,
  }));
}

function printsOf(b: Bar) {
  return [
    {
      trade_id: `${b.ts / 1000}-0`,
      ts: iso(b.ts + 10_000),
      price: b.open,
      size: b.volume / 2,
      taker_side: 'buy' as const,
    },
    {
      trade_id: `${b.ts / 1000}-1`,
      ts: iso(b.ts + 50_000),
      price: b.close,
      size: b.volume / 2,
      taker_side: 'sell' as const,
    },
  ];
}

type HotQuery = [label: string, run: (db: Kysely<Database>) => Promise<unknown>];

/** A first page of 500 combined buckets: the minutes combined 1m-30m read, the hours 1h/4h read. */
function combinedPage(bucket: '1m' | '1h', at: Date): HotQuery {
  const [span, label] =
    bucket === '1m' ? [MINUTE, '1m-30m: 500 combined minutes'] : [HOUR, '1h/4h: 500 combined hours'];
  return [
    `combined OHLCV ${label}`,
    (d) => combinedRollups(d, bucket, 'BTC', new Date(at.getTime() - 500 * span), at),
  ];
}

/** The hot queries, each as the repository function a resolver (or the purge) calls. */
async function hotQueries(db: Kysely<Database>, at: Date): Promise<HotQuery[]> {
  const markets = await marketsOf(db, 'BTC');
  const venue = markets.find((m) => m.symbol === 'BTC-USD') ?? markets[0]!;
  const ago = (ms: number) => new Date(at.getTime() - ms);
  const page = await tradesBefore(db, venue.symbol, undefined, undefined, 500);
  const last = page[page.length - 1];
  const cursor = last && { ts: Date.parse(last.ts), venue: last.venue, trade_id: last.trade_id };
  return [
    ['reference price', (d) => latestMarketQuotes(d, 'BTC', at, HOUR)],
    ['OHLCV 1m of a venue: newest bar', (d) => newestBarBefore(d, 'candles_1m', [venue], at)],
    [
      'OHLCV roll-ups: oldest bar of every market (partial marks)',
      (d) => oldestBar(d, 'candles_1m', markets),
    ],
    [
      'OHLCV 1m of a venue: a page of 500 bars',
      (d) => marketBars(d, 'candles_1m', [venue], ago(500 * MINUTE), at),
    ],
    ['OHLCV 1h of a venue: a page of 500 buckets', (d) => rollupBars(d, '1h', [venue], ago(500 * HOUR), at)],
    ['OHLCV 1d of a venue', (d) => rollupBars(d, '1d', [venue], ago(500 * 24 * HOUR), at)],
    [
      'combined OHLCV / 24 h metrics: 1m bars of every market, 24 h',
      (d) => marketBars(d, 'candles_1m', markets, ago(24 * HOUR), at),
    ],
    combinedPage('1m', at),
    combinedPage('1h', at),
    ['combined OHLCV 1d', (d) => combinedRollups(d, '1d', 'BTC', ago(500 * 24 * HOUR), at)],
    [
      'OHLCV 1s of a venue: a page of 500 bars',
      (d) => marketBars(d, 'candles_1s', [venue], ago(500_000), at),
    ],
    ['trades page, every venue, first page', (d) => tradesBefore(d, venue.symbol, undefined, undefined, 500)],
    ['trades page, every venue, next page', (d) => tradesBefore(d, venue.symbol, undefined, cursor, 500)],
    ['trades page, one venue, next page', (d) => tradesBefore(d, venue.symbol, venue.venue, cursor, 500)],
    [
      'futures funding: newest rate per market',
      (d) => latestFunding(d, 'BTC', afterRecording('btc_options')),
    ],
    [
      'futures marks: newest mark per market',
      (d) => latestPerpMarks(d, 'BTC', afterRecording('btc_options')),
    ],
    [
      'options chain: latest snapshot',
      (d) => latestChainMarks(d, 'BTC', afterRecording('btc_options'), CHAIN_SNAPSHOT_SPAN_MS),
    ],
    [
      'observations: newest of a metric and key',
      (d) => observationHistory(d, 'temperature', 'london', afterRecording('current_cities'), 1),
    ],
    [
      'observations: a history page (series=true), next page',
      (d) =>
        observationHistory(
          d,
          'temperature',
          'london',
          afterRecording('current_cities'),
          101,
          new Date(afterRecording('current_cities').getTime() - 30 * 24 * HOUR),
        ),
    ],
    [
      'observations: newest of every key (ETF funds)',
      (d) => latestPerKey(d, 'etf_net_flow', afterRecording('etf_flows')),
    ],
    [
      'observations: the replay marker of a recording',
      (d) => replayMarker(d, 'open_meteo', 'current_cities', afterRecording('current_cities')),
    ],
    ['retention purge: bases of trades', (d) => basesIn(d, 'trades')],
    [
      'retention purge: one batch of 1s bars older than 5 h',
      (d) => deleteExpiredBatch(d, 'candles_1s', 'BTC', ago(5 * HOUR), PURGE_BATCH_ROWS),
    ],
  ];
}

/**
 * Runs the query once to record its statements, then explains each, every step undone by a rollback to a
 * savepoint: the purge's DELETE is measured on the same rows it would delete, and deletes nothing.
 */
async function explain(conn: Kysely<Database>, [label, run]: HotQuery): Promise<string> {
  const recorder = new Recorder();
  await sql`savepoint hot`.execute(conn);
  await run(conn.withPlugin(recorder));
  await sql`rollback to savepoint hot`.execute(conn);
  let out = '';
  for (const [i, statement] of recorder.statements.entries()) {
    const { rows } = await conn.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(
        `explain (analyze, buffers off, costs off, timing off, summary off) ${statement.sql}`,
        [...statement.parameters],
      ),
    );
    await sql`rollback to savepoint hot`.execute(conn);
    const n = recorder.statements.length;
    out += `\n${label}${n > 1 ? ` (${i + 1}/${n})` : ''}\n\n\`\`\`\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n\`\`\`\n`;
  }
  return out;
}

async function main(): Promise<void> {
  let test: TestDatabase | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    test = await createTestDatabase('explain');
    url = test.url;
  }
  const open = openDatabase<Database>({ kind: 'pg', url, poolSize: 2 }, 'data');
  try {
    if (test) {
      await migrateToLatest(open.db, 'data', migrations);
      await load(open.db);
    }
    // One connection, one transaction, rolled back: nothing this script runs stays.
    await open.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        const { rows } = await sql<{ ts: Date | null; version: string }>`
          select max(ts) as ts, current_setting('server_version') as version from data.candles_1m`.execute(
          conn,
        );
        if (!rows[0]?.ts) throw new Error('no 1m bars in data.candles_1m');
        const at = new Date(rows[0].ts.getTime() + MINUTE);
        process.stdout.write(`Plans at ${at.toISOString()} on PostgreSQL ${rows[0].version}\n`);
        for (const query of await hotQueries(conn, at)) process.stdout.write(await explain(conn, query));
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
  } finally {
    await open.close();
    await test?.drop();
  }
}

await main();
