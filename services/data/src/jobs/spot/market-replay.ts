import type { Logger } from '@meridian/observability';
import { startPeriodic } from '@meridian/runtime';
import {
  loadRecordedColumns,
  RECORDED_MARKETS,
  RECORDING,
  type RecordedMarket,
} from '../../adapters/parsers/spot/recorded-market.js';
import type { MetricAnswer, ReplayNote, SourceRef } from '../../domain/metric-resolver.js';
import { loopedBars, loopedRecordedTime } from '../../domain/replay-clock.js';
import type { Bar } from '../../domain/series/bar.js';
import { closeAt, type BarColumns } from '../../domain/series/bar-columns.js';
import { derivePrints, secondBars } from '../../domain/spot/derived-prints.js';
import { ingestOwn, type Ingestor } from '../../flows/ingestor.js';
import {
  ingestPerpRange,
  PERP_REPLAY_METHOD,
  REPLAYED_PERPS,
  type IndexAt,
} from '../derivatives/perp-replay.js';

/** History stored at start, so that the 24 h metrics and a few daily bars answer at once. */
export const REPLAY_HISTORY_MS = 48 * 3_600_000;
/**
 * Derived trade prints and 1s bars stored at start: the last hour only (their retention is 7 days and
 * 48 h, but deriving those at start would multiply the first load's rows by hundreds); from then on they
 * roll forward with the bars.
 */
export const DERIVED_HISTORY_MS = 3_600_000;
const TICK_MS = 5_000;
/** The longest stretch played as one batch per market (the first play's 48 h: eight pieces). */
const PLAY_PIECE_MS = 6 * 3_600_000;
const BAR_MS = 60_000;

export const REPLAY_METHOD =
  'Replay of recorded data: real Binance.US and Kraken 1m bars of 2023-03-08 to 2023-03-14 (UTC), looped and shifted to the present; trade prints and 1s bars derived from those 1m bars (their open, high, low, close, volume and trade count), not recorded prints; no live venue print.';

/**
 * Plays the recorded bars as if they were arriving now: at start the bars of the last 48 h of the
 * looped recording, then every few seconds the bars that closed since, all through the ingestion
 * interface. A bar is ingested once its minute is over, as a venue would publish it, with the trade
 * prints and 1s bars derived from it (domain/spot/derived-prints.ts) for the last DERIVED_HISTORY_MS;
 * the recorded perpetuals' minutes are played with them on the same clock (perp-replay.ts).
 */
export function startMarketReplay(ingestor: Ingestor, logger: Logger, now: () => number = Date.now) {
  const markets = RECORDED_MARKETS.map((m) => ({ market: m, bars: recordedBars(m) }));
  let playedTo = now() - REPLAY_HISTORY_MS;

  const play = async (): Promise<void> => {
    const to = Math.floor((now() - BAR_MS) / BAR_MS) * BAR_MS + BAR_MS;
    if (to <= playedTo) return;
    const derivedFrom = Math.max(playedTo, now() - DERIVED_HISTORY_MS);
    // The first play's 48 h in pieces: one batch per market and piece, not per market, lowers the
    // start's peak (its batches, their statements and their garbage), which stayed partly resident.
    for (let from = playedTo; from < to; from = playedTo) {
      const until = Math.min(from + PLAY_PIECE_MS, to);
      for (const { market, bars } of markets)
        await ingestRange(ingestor, market, bars, from, until, derivedFrom);
      await ingestPerpRange(ingestor, recordedClose, from, until);
      playedTo = until;
    }
  };
  return startPeriodic(play, TICK_MS, (err) =>
    logger.error({ err }, 'market replay failed; retrying at the next tick'),
  );
}

/**
 * The recorded bars of a market, read once per process: the replay and the spot level
 * (replayedSpotAt) share them (~37,000 bars in all, for as long as the process runs), as packed
 * columns (~1.3 MB outside the V8 heap; as objects they took ~8 MB of it). Never changed: loopedBars makes
 * objects of what it plays.
 */
const parsedBars = new Map<string, BarColumns>();
function recordedBars(market: RecordedMarket): BarColumns {
  let bars = parsedBars.get(market.file);
  if (!bars) parsedBars.set(market.file, (bars = loadRecordedColumns(market)));
  return bars;
}

/** The close of a recorded spot market's bar of a recorded minute (or the newest before it). */
export const recordedClose: IndexAt = ({ venue, symbol }, recordedTs) => {
  const market = RECORDED_MARKETS.find((m) => m.venue === venue && m.symbol === symbol);
  return market && closeAt(recordedBars(market), recordedTs);
};

async function ingestRange(
  ingestor: Ingestor,
  market: RecordedMarket,
  bars: BarColumns,
  from: number,
  to: number,
  derivedFrom: number,
) {
  const rows = loopedBars(RECORDING, bars, from, to);
  if (rows.length === 0) return;
  await ingestOwn(ingestor, {
    kind: 'candles',
    source: market.venue,
    symbol: market.symbol,
    interval: '1m',
    rows: rows.map((b) => ({
      ts: new Date(b.ts).toISOString(),
      open: b.open,
      high: b.high,
      low: b.low,
      close: b.close,
      volume: b.volume,
      trade_count: b.trade_count,
    })),
  });
  await ingestDerived(
    ingestor,
    market,
    rows.filter((b) => b.ts >= derivedFrom),
  );
}

/**
 * The prints and 1s bars derived from played 1m bars. Trade ids name the replayed minute and the print's
 * place in it (`replay-<minute s>-<n>`), so a restart writes the same ids and a derived print is told
 * from a venue's at a glance.
 */
async function ingestDerived(ingestor: Ingestor, market: RecordedMarket, bars: Bar[]) {
  const trades = [];
  const seconds = [];
  for (const bar of bars) {
    const prints = derivePrints(bar, `${market.venue}:${market.symbol}`);
    for (const p of prints)
      trades.push({
        trade_id: `replay-${bar.ts / 1000}-${p.index}`,
        ts: new Date(p.ts).toISOString(),
        price: p.price,
        size: p.size,
        taker_side: p.taker_side,
      });
    seconds.push(...secondBars(prints, bar.trade_count !== null));
  }
  if (trades.length === 0) return;
  const { venue: source, symbol } = market;
  await ingestOwn(ingestor, { kind: 'trades', source, symbol, rows: trades });
  await ingestOwn(ingestor, {
    kind: 'candles',
    source,
    symbol,
    interval: '1s',
    rows: seconds.map((b) => ({ ...b, ts: new Date(b.ts).toISOString() })),
  });
}

export const REPLAYED_MARKETS = new Set(RECORDED_MARKETS.map((m) => `${m.venue}:${m.symbol}`));

/**
 * The note of an answer that rests on replayed market recordings (spot bars, perpetual bars); undefined
 * when none of its sources is. A played bar's original time is the looped mapping of its wall time
 * (the same for every instant, so a source's `recorded_ts` and the answer's `recorded_at` follow from
 * the clock alone).
 */
export function marketReplayNote(answer: MetricAnswer): ReplayNote | undefined {
  const key = (s: SourceRef) => `${s.venue}:${s.symbol ?? ''}`;
  const played = (s: SourceRef) => REPLAYED_MARKETS.has(key(s)) || REPLAYED_PERPS.has(key(s));
  const recorded = answer.sources.filter(played).map(key);
  if (recorded.length === 0) return undefined;
  const original = (ts: string) => new Date(loopedRecordedTime(RECORDING, Date.parse(ts))).toISOString();
  const methods = [
    ...(recorded.some((k) => REPLAYED_MARKETS.has(k)) ? [REPLAY_METHOD] : []),
    ...(recorded.some((k) => REPLAYED_PERPS.has(k)) ? [PERP_REPLAY_METHOD] : []),
  ];
  return {
    recorded: [...new Set(recorded)].join(', '),
    kind: 'recording',
    recorded_at: original(answer.as_of),
    played_at: answer.as_of,
    method: methods.join(' '),
    recordedTs: (s) => (played(s) ? original(s.ts) : undefined),
  };
}

/** The market whose replayed close is the BTC level the other recordings are scaled to. */
export const LEVEL_MARKET = 'binanceus BTC-USD';

/**
 * The replayed spot price at a wall instant: the close of the recorded Binance.US BTC-USD 1m bar
 * the looped replay plays then (or the newest before it), the level every replayed BTC price is
 * scaled to (domain/feeds/btc-level.ts).
 */
export function replayedSpotAt(): (wall: number) => number | undefined {
  const market = RECORDED_MARKETS.find((m) => `${m.venue} ${m.symbol}` === LEVEL_MARKET)!;
  const bars = recordedBars(market);
  return (wall) => closeAt(bars, loopedRecordedTime(RECORDING, wall));
}
