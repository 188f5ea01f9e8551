import type { Logger, Metrics } from '@meridian/observability';
import { Counter, Gauge } from 'prom-client';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { ConnectorDefinition, ConnectorKeys } from '../adapters/connectors/connector.js';
import { createUpstreamHttp } from '../adapters/connectors/upstream-http.js';
import {
  afterPoll,
  initialHealth,
  isStale,
  type ConnectorHealth,
  type PollOutcome,
} from '../domain/connector-health.js';
import type { Ingestor } from '../flows/ingestor.js';
import { pollOnce } from './live-poll.js';
import type { Database } from '../db/database.js';
import { leaseHolder, releaseLeases, takeLease } from '../db/repositories/connector-leases.js';

export interface LiveIngestSettings {
  /** Base URL per connector name, replacing its default (INGEST_URL_<NAME>). */
  urls: Record<string, string>;
  /** Poll period per connector name in ms, replacing its cadence (INGEST_EVERY_<NAME>). */
  everyMs: Record<string, number>;
  /** Only these connectors run; empty: all. */
  only: string[];
  keys: ConnectorKeys;
  timeoutMs: number;
  maxBackoffMs: number;
}

/** What `/ready` details say of one connector. */
export interface ConnectorReport {
  /** `standby`: another replica holds the connector's lease and polls it (docs/live-connectors.md). */
  state: ConnectorHealth['state'] | 'off' | 'standby';
  /** standby: the replica that polls it. */
  polled_by?: string;
  products: string[];
  stale: boolean;
  last_success_at: string | null;
  last_poll_at: string | null;
  last_rows: number;
  consecutive_failures: number;
  last_error: { kind: string; status?: number; message: string; at: string } | null;
  next_poll_at: string | null;
  /** Why it does not run (a missing key), or the source's licence note. */
  note?: string;
}

export interface LiveIngest {
  /** Starts the polls (main.ts, background). */
  start(): void;
  /** Resolves once every running connector has polled once, whatever came of it. */
  firstPolls(): Promise<void>;
  report(): Record<string, ConnectorReport>;
  stop(): Promise<void>;
}

interface LiveDeps {
  db: Kysely<Database>;
  ingestor: Ingestor;
  logger: Logger;
  metrics: Metrics;
}

interface Running {
  def: ConnectorDefinition;
  cadenceMs: number;
  health: ConnectorHealth;
  /** Set while another replica holds the lease: who. */
  standbyFor?: string | undefined;
}

/** Beyond one cadence and one timeout, how long a lease outlives its last renewal. */
const LEASE_MARGIN_MS = 30_000;
/** How often a standby replica looks whether the lease of a connector lapsed. */
const STANDBY_CHECK_MS = 15_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function instruments(metrics: Metrics, report: () => Record<string, ConnectorReport>) {
  const registers = [metrics.registry];
  const polls = new Counter({
    name: 'data_connector_polls_total',
    help: 'Polls of live upstreams by connector and outcome (ok, empty or the failure kind)',
    labelNames: ['connector', 'outcome'],
    registers,
  });
  const rows = new Counter({
    name: 'data_connector_rows_total',
    help: 'Rows received from live upstreams by connector',
    labelNames: ['connector'],
    registers,
  });
  new Gauge({
    name: 'data_connector_up',
    help: "1 when the connector's last poll succeeded and it is not stale, else 0",
    labelNames: ['connector'],
    registers,
    collect() {
      for (const [name, r] of Object.entries(report()))
        if (r.state !== 'standby')
          this.set({ connector: name }, (r.state === 'ok' || r.state === 'empty') && !r.stale ? 1 : 0);
    },
  });
  new Gauge({
    name: 'data_connector_last_success_seconds',
    help: "Unix time of the connector's last poll that brought rows (0: never)",
    labelNames: ['connector'],
    registers,
    collect() {
      for (const [name, r] of Object.entries(report()))
        if (r.state !== 'standby')
          this.set({ connector: name }, r.last_success_at ? Date.parse(r.last_success_at) / 1000 : 0);
    },
  });
  /** One poll's outcome counted, and its rows. */
  const count = (connector: string, outcome: PollOutcome) => {
    polls.inc({ connector, outcome: outcome.ok ? (outcome.rows > 0 ? 'ok' : 'empty') : outcome.kind });
    if (outcome.ok) rows.inc({ connector }, outcome.rows);
  };
  return { count };
}

/** Which connectors run (opted in, their keys set) and why the others do not. */
function planConnectors(
  definitions: readonly ConnectorDefinition[],
  settings: LiveIngestSettings,
  startedAt: number,
): { off: Record<string, ConnectorReport>; running: Map<string, Running> } {
  const chosen = definitions.filter((d) => settings.only.length === 0 || settings.only.includes(d.name));
  const off: Record<string, ConnectorReport> = {};
  const running = new Map<string, Running>();
  for (const def of chosen) {
    if (def.optIn && !settings.only.includes(def.name)) {
      off[def.name] = offReport(def, `not started: name it in INGEST_CONNECTORS to run it (${def.optIn})`);
      continue;
    }
    const missing = (def.needs ?? []).filter((k) => !settings.keys[k]);
    if (missing.length > 0) {
      off[def.name] = offReport(def, `not started: set ${missing.join(', ')}`);
      continue;
    }
    running.set(def.name, {
      def,
      cadenceMs: settings.everyMs[def.name] ?? def.cadenceMs,
      health: initialHealth(startedAt),
    });
  }
  return { off, running };
}

/** `/ready`'s details of every connector at `at`: off, standby, or its health. */
function reportOf(
  off: Record<string, ConnectorReport>,
  running: Map<string, Running>,
  startedAt: number,
  at: number,
): Record<string, ConnectorReport> {
  const out: Record<string, ConnectorReport> = { ...off };
  for (const [name, { def, cadenceMs, health, standbyFor }] of running)
    out[name] = standbyFor
      ? {
          ...offReport(def, 'another replica polls it'),
          state: 'standby',
          stale: false,
          polled_by: standbyFor,
        }
      : {
          state: health.state,
          products: def.products,
          stale: isStale(health, cadenceMs, startedAt, at),
          last_success_at: iso(health.lastSuccessAt),
          last_poll_at: iso(health.lastPollAt),
          last_rows: health.lastRows,
          consecutive_failures: health.consecutiveFailures,
          last_error: health.lastError && { ...health.lastError, at: iso(health.lastError.at)! },
          next_poll_at: iso(health.nextPollAt),
          ...(def.note || def.optIn ? { note: def.note ?? def.optIn } : {}),
        };

  return out;
}

/** A recovery, and a failure when it starts and every tenth time it repeats. */
function logOutcome(
  logger: Logger,
  name: string,
  before: ConnectorHealth,
  after: ConnectorHealth,
  outcome: PollOutcome,
): void {
  if (outcome.ok) {
    if (before.consecutiveFailures > 0) logger.info({ connector: name }, 'connector recovered');
  } else if (before.consecutiveFailures === 0 || after.consecutiveFailures % 10 === 0) {
    logger.warn(
      {
        connector: name,
        kind: outcome.kind,
        status: outcome.status,
        failures: after.consecutiveFailures,
        next_poll_at: iso(after.nextPollAt),
      },
      `connector poll failed: ${outcome.message}`,
    );
  }
}

/** The connectors' HTTP client: their timeout, and a user agent that names the contact when one is set. */
const upstreamHttpOf = (settings: LiveIngestSettings) =>
  createUpstreamHttp({
    timeoutMs: settings.timeoutMs,
    userAgent: `meridian-data/1${settings.keys.INGEST_CONTACT ? ` (${settings.keys.INGEST_CONTACT})` : ''}`,
  });

/**
 * Whether this replica polls the connector now; a standby looks again soon, to take over a lapsed
 * lease.
 */
async function leased(
  deps: LiveDeps,
  lease: { holder: string; name: string; leaseMs: number; now: () => number },
  entry: Running,
): Promise<boolean> {
  const { holder, name, leaseMs, now } = lease;
  try {
    if (await takeLease(deps.db, name, holder, leaseMs)) {
      if (entry.standbyFor)
        deps.logger.info({ connector: name }, 'connector taken over from another replica');
      entry.standbyFor = undefined;
      return true;
    }
    entry.standbyFor = (await leaseHolder(deps.db, name)) ?? 'another replica';
  } catch (err) {
    deps.logger.warn({ err, connector: name }, 'connector lease could not be read; trying again');
  }
  entry.health = { ...entry.health, nextPollAt: now() + Math.min(entry.cadenceMs, STANDBY_CHECK_MS) };
  return false;
}

/**
 * Starts every live connector (INGEST_MODE=live): each polls on its own timer, backs off on its own
 * failures (domain/connector-health.ts) and writes each answer all or nothing, so one upstream that
 * fails, hangs or rate-limits us never stops or delays another. Nothing polls before `start()`.
 */
export function createLiveIngest(
  deps: LiveDeps,
  definitions: readonly ConnectorDefinition[],
  settings: LiveIngestSettings,
  now: () => number = Date.now,
  random: () => number = Math.random,
): LiveIngest {
  const startedAt = now();
  const http = upstreamHttpOf(settings);
  const { off, running } = planConnectors(definitions, settings, startedAt);
  const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const report = () => reportOf(off, running, startedAt, now());
  const { count } = instruments(deps.metrics, report);
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const firsts: Promise<void>[] = [];

  const startOne = (name: string, entry: Running) => {
    const poll = entry.def.open(settings.urls[name] ?? entry.def.url, settings.keys);
    const schedule = {
      cadenceMs: entry.cadenceMs,
      maxBackoffMs: Math.max(settings.maxBackoffMs, entry.cadenceMs),
    };
    // Renewed at every poll; lapses when this replica stops polling (gone, or backing off long).
    const leaseMs = entry.cadenceMs + settings.timeoutMs + LEASE_MARGIN_MS;
    const turn = async (): Promise<void> => {
      if (!(await leased(deps, { holder, name, leaseMs, now }, entry))) return;
      const outcome = await pollOnce(poll, http, deps.ingestor, now);
      const before = entry.health;
      entry.health = afterPoll(before, outcome, schedule, random());
      count(name, outcome);
      logOutcome(deps.logger, name, before, entry.health, outcome);
    };
    const loop = (first: boolean): Promise<void> => {
      if (stopped) return Promise.resolve();
      const running = turn().finally(() => {
        inFlight.delete(running);
        if (stopped) return;
        const timer = setTimeout(
          () => {
            timers.delete(timer);
            void loop(false);
          },
          Math.max(0, entry.health.nextPollAt - now()),
        );
        timer.unref();
        timers.add(timer);
      });
      inFlight.add(running);
      return first ? running : Promise.resolve();
    };
    firsts.push(loop(true));
  };
  return {
    start() {
      for (const [name, entry] of running) startOne(name, entry);
      deps.logger.info(
        { connectors: [...running.keys()], not_started: Object.keys(off) },
        'live connectors started',
      );
    },
    firstPolls: async () => {
      await Promise.all(firsts);
    },
    report,
    stop: async () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await Promise.all([...inFlight]);
      // Another replica takes over at its next look instead of waiting for the leases to lapse.
      await releaseLeases(deps.db, holder).catch((err: unknown) =>
        deps.logger.warn({ err }, 'connector leases not released; they lapse on their own'),
      );
    },
  };
}

function offReport(def: ConnectorDefinition, note: string): ConnectorReport {
  return {
    state: 'off',
    products: def.products,
    stale: true,
    last_success_at: null,
    last_poll_at: null,
    last_rows: 0,
    consecutive_failures: 0,
    last_error: null,
    next_poll_at: null,
    note,
  };
}
