/**
 * What a live connector's last polls say (src/jobs/live-ingest.ts), and when it polls next: pure,
 * time passed in. A connector that fails backs off on its own and never stops another.
 */

/** Why a poll failed: the upstream's own refusal of our rate, another answer we cannot use, or no answer. */
export type PollFailureKind =
  /** 429 (too many requests), 418 (Binance: banned for ignoring 429s) or 451 (refused where we are). */
  | 'rate_limited'
  | 'http_error'
  | 'malformed'
  | 'unreachable'
  /** The batch was parsed but ingestion refused it: nothing of it was written. */
  | 'refused'
  /** Our own database failed to store it (logged; retried like any failure). */
  | 'store_failed';

export type PollOutcome =
  | { ok: true; rows: number; at: number }
  | { ok: false; kind: PollFailureKind; status?: number; message: string; retryAfterMs?: number; at: number };

export type ConnectorState = 'starting' | 'ok' | 'empty' | 'failing' | 'rate_limited';

export interface ConnectorHealth {
  state: ConnectorState;
  /** Epoch ms of the last poll that stored (or found unchanged) at least one row. */
  lastSuccessAt: number | null;
  lastPollAt: number | null;
  lastRows: number;
  consecutiveFailures: number;
  lastError: { kind: PollFailureKind; status?: number; message: string; at: number } | null;
  nextPollAt: number;
}

export interface Schedule {
  cadenceMs: number;
  /** The longest wait after failures; a rate-limit answer's own Retry-After may ask for longer. */
  maxBackoffMs: number;
}

/** After a 451 the upstream refuses us where we are: trying often will not change that. */
const LEGAL_REFUSAL_WAIT_MS = 60 * 60_000;

export function initialHealth(now: number): ConnectorHealth {
  return {
    state: 'starting',
    lastSuccessAt: null,
    lastPollAt: null,
    lastRows: 0,
    consecutiveFailures: 0,
    lastError: null,
    nextPollAt: now,
  };
}

/**
 * Exponential backoff with full jitter after `failures` failures in a row, never below the
 * cadence nor above the ceiling; `random` in [0, 1) is passed in so that tests can fix it.
 */
export function backoffMs(failures: number, schedule: Schedule, random: number): number {
  const ceiling = Math.min(schedule.maxBackoffMs, schedule.cadenceMs * 2 ** Math.min(failures, 20));
  return Math.max(schedule.cadenceMs, Math.round(ceiling * (0.5 + random / 2)));
}

/** The health after one poll, with the instant of the next. */
export function afterPoll(
  health: ConnectorHealth,
  outcome: PollOutcome,
  schedule: Schedule,
  random: number,
): ConnectorHealth {
  if (outcome.ok)
    return {
      ...health,
      state: outcome.rows > 0 ? 'ok' : 'empty',
      lastSuccessAt: outcome.rows > 0 ? outcome.at : health.lastSuccessAt,
      lastPollAt: outcome.at,
      lastRows: outcome.rows,
      consecutiveFailures: 0,
      nextPollAt: outcome.at + schedule.cadenceMs,
    };
  const failures = health.consecutiveFailures + 1;
  const wait = Math.max(
    backoffMs(failures, schedule, random),
    outcome.retryAfterMs ?? 0,
    outcome.status === 451 ? LEGAL_REFUSAL_WAIT_MS : 0,
  );
  return {
    ...health,
    state: outcome.kind === 'rate_limited' ? 'rate_limited' : 'failing',
    lastPollAt: outcome.at,
    lastRows: 0,
    consecutiveFailures: failures,
    lastError: {
      kind: outcome.kind,
      ...(outcome.status === undefined ? {} : { status: outcome.status }),
      message: outcome.message,
      at: outcome.at,
    },
    nextPollAt: outcome.at + wait,
  };
}

/**
 * A connector is stale when nothing arrived for three cadences (or ever, once that long has passed
 * since start): its feeds' answers age, as their `staleness_ms` shows.
 */
export function isStale(health: ConnectorHealth, cadenceMs: number, startedAt: number, now: number): boolean {
  const since = health.lastSuccessAt ?? startedAt;
  return now - since > 3 * cadenceMs;
}

/** Seconds of a Retry-After header (delta seconds or an HTTP date), in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
