/**
 * Retention of the fast-growing market tables: 1s bars and trades are kept for days, not years (1m bars,
 * roll-ups and the feeds are history and are never purged). Pure: the cutoffs follow from the clock and
 * the settings only, so every replica that runs the purge at the same moment deletes the same rows.
 */
export interface RetentionSettings {
  /** Hours of 1s bars kept (DATA_RETENTION_1S_HOURS). */
  candles1sHours: number;
  /** Days of trades kept (DATA_RETENTION_TRADES_DAYS). */
  tradesDays: number;
}

/** The tables the purge touches, and nothing else. */
export const PURGED_TABLES = ['candles_1s', 'trades'] as const;
export type PurgedTable = (typeof PURGED_TABLES)[number];

export type RetentionCutoffs = Record<PurgedTable, Date>;

const HOUR_MS = 3_600_000;

/** Rows whose `ts` is strictly older than the cutoff of their table are expired. */
export function retentionCutoffs(now: number, settings: RetentionSettings): RetentionCutoffs {
  return {
    candles_1s: new Date(now - settings.candles1sHours * HOUR_MS),
    trades: new Date(now - settings.tradesDays * 24 * HOUR_MS),
  };
}

/** A batch that came back full may have left expired rows behind; a short one was the last. */
export function mayHaveMore(deleted: number, batchSize: number): boolean {
  return deleted >= batchSize;
}
